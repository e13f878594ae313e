// Accept-Encoding as RFC 9110 section 12.5.3 defines it: a comma-separated list
// of codings, each with an optional weight `;q=` from 0 to 1 (0: not acceptable).
// Coding names and the `q` are case-insensitive, whitespace around `,` `;` and `=`
// is allowed, `*` stands for every coding not listed, and `x-gzip` is gzip.

type Weights = Map<string, number>;

const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

// The weight of one list member, or undefined when it is malformed (then it is ignored).
function weightOf(parameters: string[]): number | undefined {
  let weight = 1;
  for (const parameter of parameters) {
    const [name, value = ''] = parameter.split('=').map((part) => part.trim());
    if (name.toLowerCase() !== 'q') continue;
    if (!QVALUE.test(value)) return undefined;
    weight = Number(value);
  }
  return weight;
}

function parseWeights(header: string): Weights {
  const weights: Weights = new Map();
  for (const member of header.split(',')) {
    const [coding, ...parameters] = member.split(';');
    const name = coding.trim().toLowerCase();
    const weight = weightOf(parameters);
    if (!name || weight === undefined) continue;
    weights.set(name === 'x-gzip' ? 'gzip' : name, weight);
  }
  return weights;
}

/**
 * Whether to send a gzip body for this Accept-Encoding: only when the client
 * accepts gzip (named or through `*`) with a weight above 0, and does not weigh
 * the uncompressed body (`identity`, named or through `*`) higher. An unlisted
 * identity stays acceptable, as the fallback. No header, or an empty one, means
 * the uncompressed body; so does a header that accepts nothing we have (RFC 9110
 * lets a server disregard it rather than answer 406).
 */
export function prefersGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = parseWeights(header);
  const any = weights.get('*');
  const gzip = weights.get('gzip') ?? any ?? 0;
  const identity = weights.get('identity') ?? any ?? 0;
  return gzip > 0 && gzip >= identity;
}

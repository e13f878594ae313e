// The path of a request, normalised once at the edge's door (RFC 3986 §6.2.2): every rule,
// the cache key and the origin see one spelling of it, so `//admin`, `/./admin`,
// `/%2e/admin` and `/%61dmin` are all `/admin`. The core's rule tester reads test URLs the
// same way. Decisions: docs/edge.md, "One view of the request".

// ALPHA, DIGIT, "-", ".", "_", "~" (RFC 3986 §2.3): an escape of one of these means the character.
const UNRESERVED = /^[A-Za-z0-9._~-]$/;
const HEX = /^[0-9a-fA-F]{2}$/;
const ESCAPE_RUN = /(?:%[0-9A-F]{2})+/g;
const ENCODED_SLASH = /%2F/g;
// `;` and what follows it up to the end of a segment (RFC 3986 §3.3 path parameters).
const PATH_PARAMETERS = /;[^/]*/g;

/**
 * The canonical form of an origin-form path: escapes of unreserved characters decoded
 * (each escape on its own), every other escape kept with upper-case hex, runs of slashes
 * merged, then `.` and `..` segments removed (RFC 3986 §5.2.4; `..` never climbs above `/`).
 * Undefined when a `%` is not followed by two hex digits, as nginx refuses it (400).
 */
export function normalisePath(raw: string): string | undefined {
  if (!raw.includes('%') && !raw.includes('//') && !raw.includes('/.')) return raw;
  const decoded = raw.includes('%') ? decodeUnreserved(raw) : raw;
  if (decoded === undefined) return undefined;
  return withoutDotSegments(decoded.replace(/\/{2,}/g, '/'));
}

function decodeUnreserved(raw: string): string | undefined {
  let out = '';
  let from = 0;
  for (let at = raw.indexOf('%'); at !== -1; at = raw.indexOf('%', from)) {
    const hex = raw.slice(at + 1, at + 3);
    if (!HEX.test(hex)) return undefined;
    const char = String.fromCharCode(parseInt(hex, 16));
    out += raw.slice(from, at) + (UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`);
    from = at + 3;
  }
  return out + raw.slice(from);
}

function withoutDotSegments(path: string): string {
  if (!path.includes('/.')) return path;
  const segments = path.split('/');
  const kept: string[] = [];
  const last = segments.length - 1;
  for (let index = 1; index <= last; index++) {
    const segment = segments[index];
    if (segment === '..') kept.pop();
    else if (segment !== '.') kept.push(segment);
    if ((segment === '.' || segment === '..') && index === last) kept.push('');
  }
  return `/${kept.join('/')}`;
}

/**
 * The path rules match: the canonical path with its remaining escapes decoded as
 * `decodeURI` does, each run of escapes on its own (so one escape that is not UTF-8,
 * `%FF`, stays as it is and leaves the rest decoded), and then read as the origins
 * that read it most loosely would: `%2F` as `/` (nginx's `$uri`), path parameters
 * dropped (`/..;/admin` and `/;x/admin` are `/admin` to Tomcat and Jetty), slashes
 * merged and dot segments removed again. A rule then cannot be passed by a spelling
 * some origin reads as the path it names. Other reserved escapes (`%3F`, `%23`…) stay.
 */
export function matchingPath(canonical: string): string {
  if (!canonical.includes('%') && !canonical.includes(';')) return canonical;
  // %2F first, on the canonical escapes: a `%252F` must not become a slash by decoding twice.
  const decoded = canonical.includes('%') ? canonical.replace(ENCODED_SLASH, '/').replace(ESCAPE_RUN, decodeRun) : canonical;
  const withoutParameters = decoded.includes(';') ? decoded.replace(PATH_PARAMETERS, '') : decoded;
  return withoutDotSegments(withoutParameters.replace(/\/{2,}/g, '/'));
}

function decodeRun(run: string): string {
  try {
    return decodeURI(run);
  } catch {
    return decodeEachSequence(run);
  }
}

// Byte by byte: each UTF-8 sequence that decodes is decoded, any other escape is kept.
function decodeEachSequence(run: string): string {
  let out = '';
  for (let at = 0; at < run.length; ) {
    const lead = parseInt(run.slice(at + 1, at + 3), 16);
    const bytes = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    const sequence = run.slice(at, at + bytes * 3);
    try {
      out += decodeURI(sequence);
      at += sequence.length;
    } catch {
      out += run.slice(at, at + 3);
      at += 3;
    }
  }
  return out;
}

// `*` wildcards matched without backtracking: a glob is its literal pieces,
// the first anchored at the start, the last at the end, the ones between
// searched for in the value. Time is bounded by the value's length times the
// glob's, whatever the glob (a backtracking regex of `/*a*a*a*b` is exponential).

/** A glob split at its stars: `head*middle[0]*…*tail`. `stars` is 0 for a glob without `*`. */
export type Glob = { head: string; middle: readonly string[]; tail: string; stars: number };

/** The glob's literal pieces, ready to match any number of values. */
export function parseGlob(glob: string): Glob {
  const pieces = glob.split('*');
  if (pieces.length === 1) return { head: glob, middle: [], tail: '', stars: 0 };
  return { head: pieces[0], middle: pieces.slice(1, -1), tail: pieces[pieces.length - 1], stars: pieces.length - 1 };
}

/**
 * Where each star's run starts and ends in `value` (2 × stars offsets), or
 * undefined when the glob does not match. The pieces between stars are placed
 * as far right as they fit, so every star takes the longest run it can, as a
 * greedy `(.*)` of the equivalent regular expression would (its captures are the same).
 */
export function globSpans(glob: Glob, value: string): number[] | undefined {
  if (glob.stars === 0) return value === glob.head ? [] : undefined;
  const start = glob.head.length;
  let end = value.length - glob.tail.length;
  if (end < start || !value.startsWith(glob.head) || !value.endsWith(glob.tail)) return undefined;
  const spans = new Array<number>(glob.stars * 2);
  spans[spans.length - 1] = end;
  for (let piece = glob.middle.length - 1; piece >= 0; piece--) {
    const text = glob.middle[piece];
    const from = end - text.length;
    const at = from < start ? -1 : value.lastIndexOf(text, from);
    if (at < start) return undefined;
    spans[piece * 2 + 1] = at;
    spans[piece * 2 + 2] = at + text.length;
    end = at;
  }
  spans[0] = start;
  return spans;
}

/** True when `value` matches the glob (the same answer as globSpans, without recording where). */
export function globMatches(glob: Glob, value: string): boolean {
  if (glob.stars === 0) return value === glob.head;
  let position = glob.head.length;
  const end = value.length - glob.tail.length;
  if (end < position || !value.startsWith(glob.head) || !value.endsWith(glob.tail)) return false;
  // Any placement works for a yes/no answer; the leftmost one of each piece leaves the most room for the rest.
  for (const text of glob.middle) {
    const at = value.indexOf(text, position);
    if (at === -1 || at + text.length > end) return false;
    position = at + text.length;
  }
  return true;
}

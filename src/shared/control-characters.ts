// Text that can end up in an HTTP header (a header value, a Location, a Host), a URL
// or a hostname must stay on one line: a CR or LF there splits a response at the
// edge (header injection), a NUL is refused by PostgreSQL, and the other controls,
// DEL, the C1 range and the Unicode line and paragraph separators are never legitimate
// there and are read as line breaks by some parsers. Such values are refused, never cleaned.

// C0, DEL, C1, U+2028 and U+2029, as a character class body (JSON Schema and RegExp read it alike).
const CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029';

/** The JSON Schema pattern of schemas/api/no-control-characters.json (a test keeps the two equal). */
export const NO_CONTROL_CHARACTERS_PATTERN = `^[^${CLASS}]*$`;

const CONTROL_CHARACTER = new RegExp(`[${CLASS}]`);

/** What a refusal says after the field name. */
export const CONTROL_CHARACTERS_DETAIL = 'must not contain control characters (CR, LF, NUL, TAB and the other C0 controls, DEL, C1 controls, U+2028, U+2029)';

/**
 * The JSON Schema pattern of header rule values, besides no-control-characters: ASCII only, so
 * that together they allow visible ASCII and spaces. HTTP sends header values as bytes, and a
 * character such as é or ✓ has no single meaning there (Node refuses to send the latter at all).
 */
export const ASCII_ONLY_PATTERN = '^[\\u0000-\\u007f]*$';

/** What a refusal by ASCII_ONLY_PATTERN says after the field name. */
export const ASCII_ONLY_DETAIL = 'must be ASCII text (HTTP sends header values as bytes)';

/** What a refusal by one of the patterns above says after the field name; undefined for any other pattern. */
export function patternDetail(pattern: unknown): string | undefined {
  if (pattern === NO_CONTROL_CHARACTERS_PATTERN) return CONTROL_CHARACTERS_DETAIL;
  if (pattern === ASCII_ONLY_PATTERN) return ASCII_ONLY_DETAIL;
  return undefined;
}

/** True when `text` holds a character refused by NO_CONTROL_CHARACTERS_PATTERN. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

// Everything but visible ASCII, a whole code point at a time.
const NOT_VISIBLE_ASCII = /[^\x21-\x7e]/gu;

/**
 * URL text made safe for a Location header: every character but visible ASCII (controls,
 * spaces, anything non-ASCII) percent-encoded as UTF-8, as a browser encodes a URL it is
 * given. A control character must not split the response; a character above U+00FF is one
 * Node refuses to send at all (the request would end as a 500).
 */
export function encodeForLocation(text: string): string {
  return text.replace(NOT_VISIBLE_ASCII, (char) => encodeURIComponent(isLoneSurrogate(char) ? '\ufffd' : char));
}

function isLoneSurrogate(char: string): boolean {
  const code = char.charCodeAt(0);
  return char.length === 1 && code >= 0xd800 && code <= 0xdfff;
}

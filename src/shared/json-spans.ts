// Finds where the values of canonical JSON (no whitespace, as JSON.stringify writes it) lie in its
// bytes, without parsing them: the snapshot delta (docs/edge-protocol.md, "Config delta") copies
// values byte for byte, so the assembled snapshot has exactly the checksum the core computed.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** A value's bytes are `bytes.subarray(start, end)`. */
export type Span = { start: number; end: number };
/** An object member: its key as text, the span of the key with its quotes, and the span of its value. */
export type Member = { name: string; key: Span; value: Span };

/** Thrown for bytes that are not canonical JSON where a value was expected. */
export class JsonSpanError extends Error {}

function stringEnd(bytes: Buffer, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote === -1) throw new JsonSpanError(`unterminated string at byte ${start}`);
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** The index just after the value that starts at `start`. */
export function valueEnd(bytes: Buffer, start: number): number {
  const first = bytes[start];
  if (first === QUOTE) return stringEnd(bytes, start);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let at = start;
    while (at < bytes.length && bytes[at] !== COMMA && bytes[at] !== CLOSE_OBJECT && bytes[at] !== CLOSE_ARRAY) at++;
    if (at === start) throw new JsonSpanError(`no value at byte ${start}`);
    return at;
  }
  let depth = 0;
  for (let at = start; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) at = stringEnd(bytes, at) - 1;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return at + 1;
    }
  }
  throw new JsonSpanError(`unterminated value at byte ${start}`);
}

function expect(bytes: Buffer, at: number, byte: number): void {
  if (bytes[at] !== byte) throw new JsonSpanError(`expected ${String.fromCharCode(byte)} at byte ${at}`);
}

/** The members of the object whose `{` is at `start`, in order. */
export function objectMembers(bytes: Buffer, start = 0): Member[] {
  expect(bytes, start, OPEN_OBJECT);
  const members: Member[] = [];
  let at = start + 1;
  if (bytes[at] === CLOSE_OBJECT) return members;
  for (;;) {
    expect(bytes, at, QUOTE);
    const key = { start: at, end: stringEnd(bytes, at) };
    expect(bytes, key.end, COLON);
    const value = { start: key.end + 1, end: valueEnd(bytes, key.end + 1) };
    members.push({ name: JSON.parse(bytes.toString('utf8', key.start, key.end)) as string, key, value });
    at = value.end;
    if (bytes[at] === CLOSE_OBJECT) return members;
    expect(bytes, at, COMMA);
    at++;
  }
}

/** The elements of the array whose `[` is at `start`, in order. */
export function arrayElements(bytes: Buffer, start: number): Span[] {
  expect(bytes, start, OPEN_ARRAY);
  const elements: Span[] = [];
  let at = start + 1;
  if (bytes[at] === CLOSE_ARRAY) return elements;
  for (;;) {
    const element = { start: at, end: valueEnd(bytes, at) };
    elements.push(element);
    at = element.end;
    if (bytes[at] === CLOSE_ARRAY) return elements;
    expect(bytes, at, COMMA);
    at++;
  }
}

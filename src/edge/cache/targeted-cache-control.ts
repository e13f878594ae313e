// Targeted cache control (RFC 9213): CDN-Cache-Control, and an edge-specific
// name a domain may configure, tell the edge how to cache while Cache-Control
// stays for browsers. A targeted field is a Structured Field Dictionary
// (RFC 8941 §3.2); one that does not parse is invalid and the edge falls back
// to Cache-Control and Expires.
import type { ResponseHeaders } from '../pipeline/response.js';
import { headerText, type Directives } from './cache-control.js';

/** The standard field every CDN is a target of (RFC 9213 §3). */
export const CDN_CACHE_CONTROL = 'cdn-cache-control';

/** Longer values are not read (invalid: Cache-Control applies). */
const MAX_FIELD = 4096;
const MAX_MEMBERS = 32;
/** Directives whose value is delta-seconds: any other type means the directive is ignored (RFC 9213 §2.1). */
const DELTA_DIRECTIVES = new Set(['max-age', 's-maxage', 'stale-while-revalidate', 'stale-if-error']);

const KEY = /[a-z*][a-z0-9_.*-]*/y;
const INTEGER_OR_DECIMAL = /-?\d{1,15}(\.\d{1,3})?/y;
const TOKEN = /[A-Za-z*][!#$%&'*+.^_`|~0-9A-Za-z:/-]*/y;
const BYTES = /:[A-Za-z0-9+/=]*:/y;
const OWS = /[ \t]*/y;
const SP = / */y;

type Bare = { kind: 'integer'; value: number } | { kind: 'boolean'; value: boolean } | { kind: 'other' };

/** A one-pass reader of RFC 8941 syntax over `text`; every method returns undefined (and the caller gives up) on a syntax error. */
class Reader {
  index = 0;
  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.index >= this.text.length;
  }

  peek(): string {
    return this.text[this.index] ?? '';
  }

  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.index;
    const found = pattern.exec(this.text);
    if (!found) return undefined;
    this.index += found[0].length;
    return found[0];
  }

  skip(pattern: RegExp): void {
    this.match(pattern);
  }

  key(): string | undefined {
    return this.match(KEY);
  }

  bareItem(): Bare | undefined {
    const char = this.peek();
    if (char === '-' || (char >= '0' && char <= '9')) {
      const number = this.match(INTEGER_OR_DECIMAL);
      if (number === undefined) return undefined;
      return number.includes('.') ? { kind: 'other' } : { kind: 'integer', value: Number(number) };
    }
    if (char === '"') return this.string() ? { kind: 'other' } : undefined;
    if (char === '?') {
      const flag = this.text[this.index + 1];
      if (flag !== '0' && flag !== '1') return undefined;
      this.index += 2;
      return { kind: 'boolean', value: flag === '1' };
    }
    if (char === ':') return this.match(BYTES) === undefined ? undefined : { kind: 'other' };
    return this.match(TOKEN) === undefined ? undefined : { kind: 'other' };
  }

  // A quoted string: printable ASCII, with only \" and \\ escaped.
  private string(): boolean {
    for (this.index++; this.index < this.text.length; this.index++) {
      const char = this.text[this.index];
      if (char === '"') {
        this.index++;
        return true;
      }
      if (char === '\\') {
        const escaped = this.text[++this.index];
        if (escaped !== '"' && escaped !== '\\') return false;
      } else if (char < ' ' || char > '~') return false;
    }
    return false;
  }

  parameters(): boolean {
    while (this.peek() === ';') {
      this.index++;
      this.skip(SP);
      if (this.key() === undefined) return false;
      if (this.peek() === '=') {
        this.index++;
        if (this.bareItem() === undefined) return false;
      }
    }
    return true;
  }

  innerList(): boolean {
    this.index++;
    for (;;) {
      this.skip(SP);
      if (this.peek() === ')') {
        this.index++;
        return this.parameters();
      }
      if (this.bareItem() === undefined || !this.parameters()) return false;
      const next = this.peek();
      if (next !== ' ' && next !== ')') return false;
    }
  }

  /** A member's value: an item or an inner list, with parameters; `true` when the key stands alone. */
  memberValue(): Bare | undefined {
    if (this.peek() !== '=') return this.parameters() ? { kind: 'boolean', value: true } : undefined;
    this.index++;
    if (this.peek() === '(') return this.innerList() ? { kind: 'other' } : undefined;
    const item = this.bareItem();
    return item && this.parameters() ? item : undefined;
  }
}

// How a dictionary member becomes a directive: true alone, an integer as its digits; a false boolean
// drops it, as does a wrong type for a delta-seconds directive; other directives keep their presence.
function directiveValue(name: string, value: Bare): string | undefined {
  if (value.kind === 'boolean') return value.value ? '' : undefined;
  if (DELTA_DIRECTIVES.has(name)) return value.kind === 'integer' && value.value >= 0 ? String(value.value) : undefined;
  return '';
}

/** The directives of a targeted field value (RFC 9213 §2.1), or undefined when it is not a valid Dictionary (then it does not apply). */
export function parseTargetedField(value: string): Directives | undefined {
  const text = value.trim();
  if (text === '' || text.length > MAX_FIELD) return undefined;
  const reader = new Reader(text);
  const directives = new Map<string, string>();
  for (let members = 0; members < MAX_MEMBERS; members++) {
    const key = reader.key();
    const member = key === undefined ? undefined : reader.memberValue();
    if (key === undefined || member === undefined) return undefined;
    // RFC 8941 §4.2.2: a repeated key overwrites.
    directives.delete(key);
    const directive = directiveValue(key, member);
    if (directive !== undefined) directives.set(key, directive);
    reader.skip(OWS);
    if (reader.done) return directives;
    if (reader.peek() !== ',') return undefined;
    reader.index++;
    reader.skip(OWS);
    if (reader.done) return undefined;
  }
  return undefined;
}

/**
 * The field names the edge is a target of, most specific first (RFC 9213 §2.1):
 * the domain's own `targeted_cache_control_header` when set, then CDN-Cache-Control.
 */
export function targetList(own: string | null | undefined): readonly string[] {
  if (!own) return DEFAULT_TARGETS;
  const name = own.toLowerCase();
  return name === CDN_CACHE_CONTROL ? DEFAULT_TARGETS : [name, CDN_CACHE_CONTROL];
}

const DEFAULT_TARGETS: readonly string[] = [CDN_CACHE_CONTROL];

/** The directives of the first field of `targets` the response carries with a valid value; undefined when none (Cache-Control then applies). */
export function targetedDirectives(headers: ResponseHeaders, targets: readonly string[]): Directives | undefined {
  for (const name of targets) {
    if (headers[name] === undefined) continue;
    const directives = parseTargetedField(headerText(headers, name));
    if (directives) return directives;
  }
  return undefined;
}

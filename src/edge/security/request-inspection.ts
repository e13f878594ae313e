import { MAX_REGEX_INPUT } from '../../shared/rules/linear-regex.js';
import type { RequestContext } from '../pipeline/context.js';
import { tripsSignature, type SignatureSet } from './managed-signatures.js';

// What the managed signatures look at, and how it is normalized first. The request
// body is not inspected: the edge streams bodies to the origin.
//   path, query names and values: every set;
//   User-Agent and cookie values: sqli and xss; Referer: xss (it is another page's URL).

/** Where in the request a signature tripped. */
export type SignaturePart = 'path' | 'query' | 'user-agent' | 'referer' | 'cookie';

/** The first signature set a request trips, and where. */
export type SignatureHit = { set: SignatureSet; part: SignaturePart };

const PARTS_OF: Record<SignatureSet, readonly SignaturePart[]> = {
  sqli: ['path', 'query', 'user-agent', 'cookie'],
  xss: ['path', 'query', 'user-agent', 'referer', 'cookie'],
  path_traversal: ['path', 'query'],
};

// %XX and IIS's %uXXXX; a malformed escape stays as it is (never throws).
const ESCAPE = /%(?:u([0-9a-fA-F]{4})|([0-9a-fA-F]{2}))/g;

function decodeOnce(text: string): string {
  return text.includes('%') ? text.replace(ESCAPE, (_, wide: string | undefined, byte: string | undefined) => String.fromCharCode(parseInt(wide ?? byte ?? '', 16))) : text;
}

/** Request text as the signatures read it: bounded, percent-decoded twice (`%252e` is `.`), lower case. */
export function normalizeForInspection(raw: string, plusIsSpace = false): string {
  let text = raw.length > MAX_REGEX_INPUT ? raw.slice(0, MAX_REGEX_INPUT) : raw;
  if (plusIsSpace && text.includes('+')) text = text.replaceAll('+', ' ');
  return decodeOnce(decodeOnce(text)).toLowerCase();
}

// SQL comments read as white space (`union/**/select`); MySQL's executable `/*!…*/` keeps
// its content. An unterminated `/*` stays, for the quote-then-comment check. One pass, linear.
function withoutSqlComments(text: string): string {
  if (!text.includes('/*')) return text;
  let out = '';
  let from = 0;
  for (let start = text.indexOf('/*'); start !== -1; start = text.indexOf('/*', from)) {
    const end = text.indexOf('*/', start + 2);
    if (end === -1) break;
    const inner = text[start + 2] === '!' ? text.slice(start + 3, end).replace(/^\d*/, '') : '';
    out += `${text.slice(from, start)} ${inner} `;
    from = end + 2;
  }
  return out + text.slice(from);
}

// Browsers drop tabs and line breaks inside `javascript:`, and a NUL inside a tag name.
const XSS_NOISE = /[\t\r\n\0]/g;
// Over-long UTF-8 forms of `.`, `/` and `\` (decoded byte by byte above) and backslashes.
const OVERLONG_DOT = /\u00c0\u00ae|\u00e0\u0080\u00ae/g;
const OVERLONG_SLASH = /\u00c0\u00af|\u00c1\u009c|\\/g;

function forSet(set: SignatureSet, text: string): string {
  if (set === 'sqli') return withoutSqlComments(text);
  if (set === 'xss') return text.replace(XSS_NOISE, '');
  return text.replace(OVERLONG_DOT, '.').replace(OVERLONG_SLASH, '/');
}

function queryTexts(query: string): string[] {
  const texts: string[] = [];
  if (!query) return texts;
  for (const pair of query.split('&')) {
    if (!pair) continue;
    const equals = pair.indexOf('=');
    if (equals === -1) texts.push(normalizeForInspection(pair, true));
    else {
      if (equals > 0) texts.push(normalizeForInspection(pair.slice(0, equals), true));
      if (equals < pair.length - 1) texts.push(normalizeForInspection(pair.slice(equals + 1), true));
    }
  }
  return texts;
}

/**
 * The managed-signature view of one request: parts are decoded once, on first
 * use, and each set's verdict is kept, so several WAF rules naming the same
 * sets cost one inspection.
 */
export class RequestInspection {
  private readonly texts = new Map<SignaturePart, string[]>();
  private readonly verdicts = new Map<SignatureSet, SignatureHit | null>();

  constructor(private readonly ctx: RequestContext) {}

  /** The first of `sets` (in the given order) the request trips, or undefined. */
  firstHit(sets: readonly SignatureSet[]): SignatureHit | undefined {
    for (const set of sets) {
      const hit = this.verdict(set);
      if (hit) return hit;
    }
    return undefined;
  }

  private verdict(set: SignatureSet): SignatureHit | null {
    let hit = this.verdicts.get(set);
    if (hit === undefined) {
      hit = null;
      for (const part of PARTS_OF[set]) {
        if (this.textsOf(part).some((text) => tripsSignature(set, forSet(set, text)))) {
          hit = { set, part };
          break;
        }
      }
      this.verdicts.set(set, hit);
    }
    return hit;
  }

  private textsOf(part: SignaturePart): string[] {
    let texts = this.texts.get(part);
    if (!texts) {
      texts = this.read(part);
      this.texts.set(part, texts);
    }
    return texts;
  }

  private read(part: SignaturePart): string[] {
    const facts = this.ctx.facts?.facts;
    // The path as sent: normalising it removed the `../` the traversal signatures look for.
    if (part === 'path') return [normalizeForInspection(this.ctx.rawPath)];
    if (part === 'query') return queryTexts(this.ctx.query);
    if (part === 'cookie') return Object.values(facts?.cookies ?? {}).map((value) => normalizeForInspection(value));
    const header = facts?.headers[part];
    return header ? [normalizeForInspection(header)] : [];
  }
}

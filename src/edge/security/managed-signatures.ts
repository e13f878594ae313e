import { compileLinearRegex, type LinearRegex } from '../../shared/rules/linear-regex.js';

// The managed WAF signature sets. Each check runs on text already percent-decoded
// (twice), lower-cased and bounded (see request-inspection.ts). Every pattern runs on
// RE2, so its time is linear in the input whatever an attacker sends; a cheap
// pre-filter (a plain RegExp without quantifiers, also linear) skips RE2 for the
// common request that holds none of the characters an attack needs.
// The lists are curated for few false positives: text such as "/blog/union-station"
// or "select a plan" must pass (tests keep hit and miss lists).

/** The managed signature sets a WAF rule can name in `signatures`. */
export type SignatureSet = 'sqli' | 'xss' | 'path_traversal';

export const SIGNATURE_SETS: readonly SignatureSet[] = ['sqli', 'xss', 'path_traversal'];

const SQLI = [
  // Tautologies after a closing quote: ' or 1=1, ' or 'a'='a, " or ""=", ' or true
  String.raw`['"\x60]\s*(or|and|xor|\|\||&&)\s*(['"\x60]?[\w.-]*['"\x60]?\s*(=|<>|!=|<|>|like\b|rlike\b|regexp\b|in\s*\()|(true|false|null|not)\b)`,
  // A quote closed and the rest commented out or chained: admin'--, 1'; drop table
  String.raw`['"\x60]\s*(--|/\*|#\s*$)`,
  String.raw`['"\x60)]\s*;\s*(select|drop|delete|insert|update|shutdown|exec|execute|declare|alter|create|truncate)\b`,
  String.raw`\bunion\s*(all\s+|distinct\s+)?\(?\s*select\b`,
  String.raw`;\s*(drop|truncate|alter)\s+(table|database|schema)\b`,
  String.raw`;\s*(delete\s+from|insert\s+into|shutdown\b|declare\s+@)`,
  String.raw`\b(and|or)\s+\d+\s*(=|<|>)\s*\d+`,
  String.raw`\b(sleep|benchmark|pg_sleep)\s*\(\s*\d`,
  String.raw`\bwaitfor\s+(delay|time)\s+'`,
  String.raw`\bselect\s+(\*\s+from\b|@@|null\s*,|(user|version|database|current_user|schema|char|concat|group_concat|load_file)\s*\()`,
  String.raw`@@version\b|\binformation_schema\s*\.|\b(xp_cmdshell|sp_executesql|sp_oacreate)\b`,
];
const SQLI_HINT = /['"`;@=(*]|union|select/;

const EVENT_HANDLERS = [
  'abort', 'afterprint', 'animationend', 'animationiteration', 'animationstart', 'auxclick', 'beforeprint', 'beforeunload', 'begin', 'blur',
  'canplay', 'canplaythrough', 'change', 'click', 'contextmenu', 'copy', 'cut', 'dblclick', 'drag', 'dragend', 'dragenter', 'dragleave',
  'dragover', 'dragstart', 'drop', 'durationchange', 'end', 'ended', 'error', 'focus', 'focusin', 'focusout', 'hashchange', 'input',
  'invalid', 'keydown', 'keypress', 'keyup', 'load', 'loadeddata', 'loadedmetadata', 'loadstart', 'message', 'mousedown', 'mouseenter',
  'mouseleave', 'mousemove', 'mouseout', 'mouseover', 'mouseup', 'mousewheel', 'pagehide', 'pageshow', 'paste', 'pause', 'play',
  'playing', 'pointerdown', 'pointerenter', 'pointerleave', 'pointermove', 'pointerout', 'pointerover', 'pointerup', 'popstate',
  'progress', 'readystatechange', 'repeat', 'reset', 'resize', 'scroll', 'search', 'seeked', 'seeking', 'select', 'show', 'start',
  'storage', 'submit', 'toggle', 'touchend', 'touchmove', 'touchstart', 'transitionend', 'unload', 'volumechange', 'wheel',
];

const XSS = [
  String.raw`<\s*/?\s*script\b`,
  String.raw`\b(javascript|vbscript|livescript)\s*:`,
  String.raw`\bdata\s*:\s*text/html`,
  // An event-handler attribute, with or without a tag before it: " onerror=alert(1)
  `(^|[^a-z0-9_-])on(${EVENT_HANDLERS.join('|')})\\s*=`,
  String.raw`<\s*(iframe|frame|frameset|object|embed|applet|svg|math|base|isindex)\b`,
  String.raw`\bdocument\s*\.\s*(cookie|domain|write)\b|\bstring\s*\.\s*fromcharcode\b|\bsrcdoc\s*=`,
];
const XSS_HINT = /[<:=]|document|fromcharcode/;

const PATH_TRAVERSAL = [
  // A `..` segment (Tomcat's `..;/` too); backslashes were turned into slashes before.
  String.raw`(^|/)\.\.+(;[^/]*)?(/|$)`,
  String.raw`/etc/(passwd|shadow|group|hosts)\b|/proc/self/|(^|/)(boot|win|system)\.ini\b|\bc:/windows/`,
  String.raw`\b(file|php|phar|expect|glob)://`,
];
const PATH_TRAVERSAL_HINT = /\.\.|\/etc\/|\/proc\/|\.ini|c:|:\/\/|\0/;

type SetCheck = { hint: RegExp; regex: LinearRegex; nul: boolean };

function compileSet(patterns: string[], hint: RegExp, nul: boolean): SetCheck {
  return { hint, regex: compileLinearRegex(patterns.map((pattern) => `(?:${pattern})`).join('|'), true), nul };
}

const CHECKS: Record<SignatureSet, SetCheck> = {
  sqli: compileSet(SQLI, SQLI_HINT, false),
  xss: compileSet(XSS, XSS_HINT, false),
  // A NUL in a decoded path or value truncates file names in many back ends.
  path_traversal: compileSet(PATH_TRAVERSAL, PATH_TRAVERSAL_HINT, true),
};

/** True when normalized text (decoded, lower case, bounded: see normalizeForSet) trips the set. */
export function tripsSignature(set: SignatureSet, normalized: string): boolean {
  const check = CHECKS[set];
  if (!check.hint.test(normalized)) return false;
  if (check.nul && normalized.includes('\0')) return true;
  return check.regex.test(normalized);
}

/** True when `set` is a managed signature set name. */
export function isSignatureSet(set: unknown): set is SignatureSet {
  return set === 'sqli' || set === 'xss' || set === 'path_traversal';
}

// The cache key of a request. Built on every cacheable request, so it is plain
// string work: only a part longer than LONG_PART is hashed.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestContext } from '../pipeline/context.js';
import type { CacheRule } from './types.js';

/** Parts longer than this are replaced by their SHA-256, which bounds a key to a few KB. */
const LONG_PART = 512;

function bounded(part: string): string {
  return part.length > LONG_PART ? `#${createHash('sha256').update(part).digest('hex')}` : part;
}

function paramName(param: string): string {
  const eq = param.indexOf('=');
  const raw = (eq === -1 ? param : param.slice(0, eq)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

// Parameters in order of their (decoded) name; the sort is stable, so repeated parameters keep
// their order: an origin reading the first of ?a=1&a=2 must never get the answer meant for ?a=2&a=1.
function byName(params: string[]): string[] {
  const named = params.map((param) => ({ name: paramName(param), param }));
  named.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return named.map((entry) => entry.param);
}

function sortedQuery(query: string): string {
  if (query.indexOf('&') === -1) return query;
  return byName(query.split('&')).join('&');
}

function filteredQuery(query: string, names: readonly string[], keep: boolean): string {
  if (query === '') return '';
  const wanted = new Set(names);
  return byName(query.split('&').filter((param) => param !== '' && wanted.has(paramName(param)) === keep)).join('&');
}

/** The query part of the key: the rule's query_strings mode when it has one, else the domain's query_string_mode (a page rule's cache_level basic ignores the query). */
export function keyQuery(ctx: RequestContext, rule: CacheRule | undefined): string {
  const query = ctx.query;
  const mode = rule?.cache_key?.query_strings;
  if (mode) {
    if (mode.mode === 'none') return '';
    if (mode.mode === 'include') return filteredQuery(query, mode.names ?? [], true);
    if (mode.mode === 'exclude') return filteredQuery(query, mode.names ?? [], false);
  } else if (ctx.page?.cache_level === 'basic') return '';
  switch (ctx.domain?.cache.query_string_mode) {
    case 'ignore':
      return mode ? query : '';
    case 'sort':
      return sortedQuery(query);
    default:
      return query;
  }
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  if (value === undefined) return '';
  return typeof value === 'string' ? value : value.join(', ');
}

/**
 * A cache key in its parts, none of the first four holding a line feed (a canonical path has none:
 * the parser refuses a raw one and an escaped one stays escaped). `rest` is what follows the path:
 * the query, the parts a rule adds, a variant's values. The key is the parts joined by line feeds
 * (keyText), so the parts name one key and the key its parts (partsOfKey): the memory tier finds a
 * request's object by them, without making and hashing the whole key on every request.
 */
export type KeyParts = { readonly domainId: string; readonly scheme: string; readonly host: string; readonly path: string; readonly rest: string };

/**
 * The key of a request in its parts: domain id, scheme, host, path and query (per the query mode),
 * plus the request headers, cookies and country a matching cache rule names.
 * GET and HEAD share keys. The scheme is part of it, as in nginx's default key: an origin that
 * answers http with a cacheable redirect to https, without Vary, must not have it served over https.
 */
export function keyParts(ctx: RequestContext, rule: CacheRule | undefined): KeyParts {
  return { domainId: ctx.domain?.id ?? '', scheme: ctx.scheme, host: ctx.host, path: bounded(ctx.path), rest: keyRest(ctx, rule) };
}

function keyRest(ctx: RequestContext, rule: CacheRule | undefined): string {
  let rest = `\n${bounded(keyQuery(ctx, rule))}`;
  const spec = rule?.cache_key;
  if (!spec) return rest;
  for (const name of spec.headers ?? []) rest += `\nh:${name}=${bounded(headerValue(ctx.headers, name.toLowerCase()))}`;
  if (spec.cookies?.length) {
    const cookies = ctx.facts?.facts.cookies ?? {};
    for (const name of spec.cookies) rest += `\nc:${bounded(name)}=${bounded(cookies[name] ?? '')}`;
  }
  if (spec.country) rest += `\ncountry=${ctx.country ?? ''}`;
  return rest;
}

/** The key the parts make. */
export function keyText(parts: KeyParts): string {
  return `${parts.domainId}\n${parts.scheme}\n${parts.host}\n${parts.path}${parts.rest}`;
}

/** The parts of `key` (split at its first four line feeds); undefined for a text no key has (fewer of them). */
export function partsOfKey(key: string): KeyParts | undefined {
  const afterDomain = key.indexOf('\n');
  const afterScheme = key.indexOf('\n', afterDomain + 1);
  const afterHost = afterScheme === -1 ? -1 : key.indexOf('\n', afterScheme + 1);
  const afterPath = afterHost === -1 ? -1 : key.indexOf('\n', afterHost + 1);
  if (afterDomain === -1 || afterPath === -1) return undefined;
  return {
    domainId: key.slice(0, afterDomain),
    scheme: key.slice(afterDomain + 1, afterScheme),
    host: key.slice(afterScheme + 1, afterHost),
    path: key.slice(afterHost + 1, afterPath),
    rest: key.slice(afterPath),
  };
}

/** What stands in a variant key for the shield header the origin received: its secret never enters a key (nor a disk file). */
const SHIELD_SECRET = '(shield secret)';

/**
 * The value of request header `name` (lower case) as the origin received it (origin/forward-headers.ts):
 * for the headers the edge sets, the edge's value (X-Forwarded-Proto the scheme, X-Forwarded-For and
 * X-Real-IP the client address, Host and X-Forwarded-Host the normalised host, the shield header its secret), never
 * the client's. Host stands for itself even where an origin has a host_header: that is one fixed
 * value per origin, and the key already holds the host. For the rest the request's value (request-header rules already applied). CDN-Loop is
 * the client's list, to which the edge appends its own constant pseudonym, so it names what the origin saw.
 */
export function originSaw(ctx: RequestContext, name: string): string {
  switch (name) {
    case 'x-forwarded-proto':
      return ctx.scheme;
    case 'x-forwarded-for':
    case 'x-real-ip':
      return ctx.clientIp;
    case 'host':
    case 'x-forwarded-host':
      return ctx.host;
  }
  const shield = ctx.domain?.originShield;
  if (shield && name.length === shield.header_name.length && name === shield.header_name.toLowerCase()) return shield.secret ? SHIELD_SECRET : '';
  return headerValue(ctx.headers, name);
}

/**
 * The key of the variant of an object varying on `vary` (lower-case request header names) that
 * answers `ctx`: the values the origin received for those headers (originSaw), so a response made
 * for one scheme or client address is never served for another.
 */
export function variantKey(key: string, vary: readonly string[], ctx: RequestContext): string {
  let variant = `${key}\nvary`;
  for (const name of vary) variant += `\n${name}=${bounded(originSaw(ctx, name))}`;
  return variant;
}

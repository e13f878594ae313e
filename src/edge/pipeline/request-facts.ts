import type { IncomingHttpHeaders } from 'node:http';
import type { RequestFacts } from '../../shared/rules/types.js';
import type { RequestContext } from './context.js';
import { matchingPath } from '../../shared/request-path.js';
import { queryValues } from '../../shared/rules/query-values.js';

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Cookies of a Cookie header; the first of a repeated name wins (as browsers send the most specific first). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals === -1) continue;
    const name = part.slice(0, equals).trim();
    if (name && !(name in cookies)) cookies[name] = part.slice(equals + 1).trim();
  }
  return cookies;
}

/**
 * The facts the rule matcher sees, computed on first read: a cache hit on a
 * domain whose rules never look at the query or cookies never parses them.
 */
export class LazyRequestFacts implements RequestFacts {
  readonly host: string;
  readonly method: string;
  readonly country: string | undefined;
  readonly ip: string;
  private decoded: string | undefined;
  private parsedQuery: Record<string, string[]> | undefined;
  private flat: Record<string, string> | undefined;
  private jar: Record<string, string> | undefined;

  constructor(private readonly ctx: RequestContext) {
    this.host = ctx.host;
    this.method = ctx.method;
    this.country = ctx.country;
    this.ip = ctx.clientIp;
  }

  get path(): string {
    return (this.decoded ??= matchingPath(this.ctx.path));
  }

  get query(): Record<string, string[]> {
    return (this.parsedQuery ??= queryValues(this.ctx.query));
  }

  get headers(): Record<string, string> {
    return (this.flat ??= flatHeaders(this.ctx.headers));
  }

  get cookies(): Record<string, string> {
    return (this.jar ??= parseCookies(this.ctx.headers.cookie));
  }
}

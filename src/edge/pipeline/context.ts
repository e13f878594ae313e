import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { PreparedRequest } from '../../shared/rules/compile.js';
import type { ActiveConfig, ActiveDomain } from '../config/active-config.js';
import { arrivalSecond } from './arrival-second.js';
import type { EdgeResponse } from './response.js';

/** What the edge reports to the core's security-event collector (schemas/api/security-event.json, less domain and client fields the log phase fills in). */
export type SecurityFinding = {
  kind: 'waf' | 'rate_limit' | 'ip_rule' | 'bot' | 'geo' | 'challenge';
  action: 'block' | 'challenge' | 'allow' | 'log' | 'pass';
  rule_id: string | null;
  details?: Record<string, unknown>;
};

/** X-Cache values of a response (NONE: the edge answered itself: redirect, block, challenge, error page). */
export type CacheStatus = 'HIT' | 'MISS' | 'BYPASS' | 'EXPIRED' | 'STALE' | 'NONE';

/** Every cache status, in the order of cacheStatusIndex. */
export const CACHE_STATUSES: readonly CacheStatus[] = ['HIT', 'MISS', 'BYPASS', 'EXPIRED', 'STALE', 'NONE'];

/**
 * The position of `status` in CACHE_STATUSES, for tables indexed by it. A switch, not an object
 * keyed by the status: a load whose key varies goes megamorphic, some 200 instructions a read.
 */
export function cacheStatusIndex(status: CacheStatus): number {
  switch (status) {
    case 'HIT':
      return 0;
    case 'MISS':
      return 1;
    case 'BYPASS':
      return 2;
    case 'EXPIRED':
      return 3;
    case 'STALE':
      return 4;
    case 'NONE':
      return 5;
  }
}

/** Page-rule settings in force for this request (docs/rules.md, page-rules). */
export type PageSettings = {
  cache_level?: 'bypass' | 'basic' | 'standard' | 'cache_everything';
  edge_cache_ttl_seconds?: number;
  browser_cache_ttl_seconds?: number;
  always_use_https?: boolean;
  security_level?: 'off' | 'low' | 'medium' | 'high' | 'under_attack';
  disable_features?: ('waf' | 'rate_limit' | 'cache' | 'security_headers')[];
};

/**
 * Everything one request carries through the pipeline. One object per request,
 * filled in by the phases in order; fields a phase has not reached yet are unset.
 */
export class RequestContext {
  /** The active config this request is served with (a swap never changes it mid-request). */
  readonly config: ActiveConfig;
  readonly requestId: string;
  /** The Unix second the request arrived in (arrival-second.ts). */
  readonly receivedSecond: number;
  /**
   * The request's headers, read from `req` once: Node's `req.headers` is a getter whose lookup
   * costs a megamorphic load on every read. The door and request-header rules change them here.
   */
  readonly headers: IncomingHttpHeaders;
  /** The connecting address (canonical form): a trusted proxy's, or the client's own. */
  readonly peer: string;
  /** The client address (the connecting address, or X-Forwarded-For's from a trusted proxy), canonical form. */
  clientIp: string;
  /** `http` or `https`: how the client reached the edge. */
  scheme: 'http' | 'https';
  /** The request's host (absolute-form authority, else Host), lower case, without port or trailing dot (request-head.ts). */
  host = '';
  method: string;
  /** The canonical path (shared/request-path.ts): what rules, the cache key and the origin see. */
  path = '/';
  /** The path as sent; only the managed WAF signatures read it. */
  rawPath = '/';
  /** The query string as sent, without `?`; '' when none. */
  query = '';
  /** Set by the host phase: the domain serving this host. */
  domain: ActiveDomain | undefined;
  /** Set by the country phase: ISO 3166-1 alpha-2, or undefined when unknown. */
  country: string | undefined;
  /** Set after the country phase: the request facts every rule set matches against. */
  facts: PreparedRequest | undefined;
  /** Set by the page-rules phase. */
  page: PageSettings | undefined;
  /** The decided response; set by the phase that handled the request. */
  response: EdgeResponse | undefined;
  cacheStatus: CacheStatus = 'NONE';
  /** The origin that answered (for usage and passive health). */
  originId: string | undefined;
  /** Security decisions taken on this request, reported by the log phase. */
  readonly findings: SecurityFinding[] = [];
  /** Body bytes written to the client, counted by the writer. */
  bytesSent = 0;
  /** Set by the error funnel when an origin failure (OriginError) decided the answer. */
  originFailed = false;
  /** Set by the runner once the log phase ran for this request. */
  logged = false;
  /** An Upgrade request's status, written on the raw socket rather than through `res` (101 when tunnelled). */
  tunnelStatus: number | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    init: { config: ActiveConfig; requestId: string; clientIp: string; peer: string; scheme: 'http' | 'https'; headers?: IncomingHttpHeaders },
  ) {
    this.config = init.config;
    this.headers = init.headers ?? req.headers;
    this.peer = init.peer;
    this.requestId = init.requestId;
    this.clientIp = init.clientIp;
    this.scheme = init.scheme;
    this.method = req.method ?? 'GET';
    this.receivedSecond = arrivalSecond();
  }

  /** True when a page rule switched `feature` off for this request. */
  disabled(feature: 'waf' | 'rate_limit' | 'cache' | 'security_headers'): boolean {
    return this.page?.disable_features?.includes(feature) === true;
  }
}

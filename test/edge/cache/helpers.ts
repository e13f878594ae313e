// Builds real request contexts from a small snapshot, a real origin server and a
// fetchOrigin that proxies to it with node:http, for the cache tests.
import { queryValues } from '../../../src/shared/rules/query-values.js';
import { createServer, request as httpRequest, IncomingMessage, ServerResponse, type IncomingHttpHeaders, type OutgoingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { createCachePhase, type CachePhaseOptions } from '../../../src/edge/cache/cache-phase.js';
import { DiskTier } from '../../../src/edge/cache/disk-tier.js';
import { MemoryTier } from '../../../src/edge/cache/memory-tier.js';
import type { CacheEntry } from '../../../src/edge/cache/types.js';
import type { Phase } from '../../../src/edge/pipeline/phase.js';
import { compileActiveConfig, domainForHost, type ActiveConfig } from '../../../src/edge/config/active-config.js';
import { RequestContext, type PageSettings } from '../../../src/edge/pipeline/context.js';
import type { EdgeResponse } from '../../../src/edge/pipeline/response.js';
import { forwardHeaders } from '../../../src/edge/origin/forward-headers.js';
import { prepareRequest } from '../../../src/shared/rules/rule-set.js';
import type { ConfigSnapshot, SnapshotOrigin, SnapshotPurge, SnapshotRule } from '../../../src/shared/snapshot.js';

export const DOMAIN_ID = 'dom-1';

export type SnapshotParts = { cache?: Record<string, unknown>; cacheRules?: Partial<SnapshotRule>[]; purges?: SnapshotPurge[] };

/** A snapshot with one domain (example.com, www.example.com, *.example.com) and the given cache settings, cache rules and purges. */
export function snapshotWith(parts: SnapshotParts = {}): ConfigSnapshot {
  const cacheRules = (parts.cacheRules ?? []).map((rule, index) => ({ id: `rule-${index}`, name: `rule ${index}`, priority: index, match: {}, ...rule })) as SnapshotRule[];
  return {
    schema_version: 2,
    edge: { challenge_difficulty: 3, security: {} },
    domains: [
      {
        id: DOMAIN_ID,
        domain: 'example.com',
        hostnames: ['example.com', 'www.example.com', '*.example.com'],
        origin_shield: null,
        origins: [],
        cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false, ...parts.cache },
        ssl: {},
        certificates: [],
        rules: { 'ip-rules': [], 'waf-rules': [], 'rate-limits': [], redirects: [], 'page-rules': [], 'cache-rules': cacheRules, headers: [] },
      },
    ],
    purges: parts.purges ?? [],
  };
}

/** The active config of `parts` (see snapshotWith). */
export function configWith(parts: SnapshotParts = {}): ActiveConfig {
  return compileActiveConfig(snapshotWith(parts), 1, 'checksum');
}

export type RequestOptions = { method?: string; headers?: Record<string, string>; country?: string; page?: PageSettings; scheme?: 'http' | 'https' };

function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0) cookies[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return cookies;
}

/** A request context for `url` as the phases before the cache phase leave it (domain, facts, country, page settings). */
export function contextFor(config: ActiveConfig, url: string, options: RequestOptions = {}): RequestContext {
  const parsed = new URL(url);
  const req = new IncomingMessage(new Socket());
  req.method = options.method ?? 'GET';
  req.url = parsed.pathname + parsed.search;
  const headers: IncomingHttpHeaders = { host: parsed.host };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  req.headers = headers;
  const ctx = new RequestContext(req, new ServerResponse(req), { config, requestId: 'req-1', clientIp: '192.0.2.1', peer: '192.0.2.1', scheme: options.scheme ?? 'http' });
  ctx.host = parsed.hostname;
  ctx.path = parsed.pathname;
  ctx.query = parsed.search.slice(1);
  ctx.domain = domainForHost(config, ctx.host);
  ctx.country = options.country;
  ctx.page = options.page;
  ctx.facts = prepareRequest({
    host: ctx.host,
    path: ctx.path,
    method: ctx.method,
    query: queryValues(parsed.search.slice(1)),
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)])),
    cookies: cookiesOf(headers.cookie as string | undefined),
    country: options.country,
    ip: '192.0.2.1',
  });
  return ctx;
}

/** A real origin on 127.0.0.1 counting the requests it answered. */
export class Origin {
  requests = 0;
  private server: Server | undefined;

  constructor(private handler: RequestListener) {}

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** Replaces the handler (the origin "changes" its content or starts failing). */
  handle(handler: RequestListener): void {
    this.handler = handler;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.requests++;
      this.handler(req, res);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/** The request headers the edge sends an origin in production (forward-headers.ts), for an origin without host_header. */
export function forwardedHeaders(ctx: RequestContext, validators?: Record<string, string>): string[] {
  return forwardHeaders(ctx.headers, { host_header: null } as SnapshotOrigin, { domain: ctx.domain!, clientHost: ctx.host, clientIp: ctx.clientIp, scheme: ctx.scheme, validators });
}

/**
 * A fetchOrigin that proxies the request to 127.0.0.1:`port` (a closed port gives a 'connect' failure)
 * with the client's headers and the cache's validators, or those `headersOf` makes (e.g. forwardedHeaders).
 */
export function proxyTo(
  port: () => number,
  headersOf: (ctx: RequestContext, validators?: Record<string, string>) => OutgoingHttpHeaders | string[] = (ctx, validators) => ({ ...ctx.headers, ...validators }),
): (ctx: RequestContext, options?: { conditional?: Record<string, string> }) => Promise<EdgeResponse> {
  return (ctx, options) =>
    new Promise((resolve, reject) => {
      const target = ctx.query ? `${ctx.path}?${ctx.query}` : ctx.path;
      const headers = headersOf(ctx, options?.conditional);
      const upstream = httpRequest({ host: '127.0.0.1', port: port(), method: ctx.method, path: target, headers, agent: false }, (res) => {
        resolve({ status: res.statusCode ?? 502, headers: { ...res.headers } as EdgeResponse['headers'], body: ctx.method === 'HEAD' ? null : res });
      });
      upstream.on('error', (error) => reject(Object.assign(new Error(`origin unreachable: ${error.message}`), { kind: 'connect' })));
      upstream.end();
    });
}

/** The whole body of a response (a stream is read to its end). */
export async function bodyOf(response: EdgeResponse | undefined): Promise<Buffer> {
  const body = response?.body;
  if (!body) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Waits until `check` holds (background work of the phase), polling briefly. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A stored object under `key` with a body of `bytes` bytes (fresh until `freshUntil`, default far ahead). */
export function entry(key: string, bytes: number, fields: Partial<CacheEntry> = {}): CacheEntry {
  const forever = Date.now() + 3_600_000;
  return { key, domainId: DOMAIN_ID, host: 'example.com', path: `/${key}`, query: '', status: 200, headers: {}, originFreshness: {}, body: Buffer.alloc(bytes), storedAt: Date.now(), fetchedAt: Date.now(), freshUntil: forever, swrUntil: forever, sieUntil: forever, vary: [], marker: false, ...fields };
}

/** An origin handler answering 200 with `body` as text/plain, plus `headers`. */
export function answer(body: string, headers: Record<string, string> = {}): RequestListener {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };
}

/** A cache phase over a 16 MiB memory tier and a 64 MiB disk tier under `dir`, fetching from the origin on `port()`. */
export function cachePhaseIn(dir: string, port: () => number, options: Partial<CachePhaseOptions> = {}): Phase {
  return createCachePhase({
    memory: new MemoryTier(16 * 1024 * 1024),
    disk: new DiskTier(join(dir, 'cache'), 64 * 1024 * 1024),
    fetchOrigin: proxyTo(port),
    onStored: () => undefined,
    ...options,
  });
}

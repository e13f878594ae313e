// Test support for the rule and security phases: a compiled active config built from
// a small snapshot, and a RequestContext filled in as the host and country phases and
// the facts step would. Table tests use a minimal fake request (method, url, headers,
// socket) and response; the challenge tests use real node:http pairs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { compileActiveConfig, domainForHost, type ActiveConfig } from '../../../src/edge/config/active-config.js';
import { RequestContext } from '../../../src/edge/pipeline/context.js';
import { prepareRequest } from '../../../src/shared/rules/rule-set.js';
import { SNAPSHOT_RULE_KINDS, type ConfigSnapshot, type SnapshotRule, type SnapshotRuleKind } from '../../../src/shared/snapshot.js';

export const DOMAIN_ID = 'dom-1';

let ruleCount = 0;

/** A snapshot rule with an id, a name and a priority in the order rules are written. */
export function rule(fields: Record<string, unknown>): SnapshotRule {
  ruleCount++;
  return { id: `rule-${ruleCount}`, name: `rule ${String(ruleCount).padStart(4, '0')}`, priority: 1000, match: {}, ...fields } as SnapshotRule;
}

/** An active config of one domain (example.com, www.example.com) with the given rules and `security` settings. */
export function activeConfig(rules: Partial<Record<SnapshotRuleKind, SnapshotRule[]>>, security: Record<string, unknown> = {}, challengeDifficulty = 3): ActiveConfig {
  const all = Object.fromEntries(SNAPSHOT_RULE_KINDS.map((kind) => [kind, rules[kind] ?? []])) as Record<SnapshotRuleKind, SnapshotRule[]>;
  const snapshot: ConfigSnapshot = {
    schema_version: 2,
    edge: { challenge_difficulty: challengeDifficulty, security },
    domains: [{ id: DOMAIN_ID, domain: 'example.com', hostnames: ['example.com', 'www.example.com', 'localhost'], origin_shield: null, origins: [], cache: {}, ssl: {}, certificates: [], rules: all }],
    purges: [],
  };
  return compileActiveConfig(snapshot, 1, 'checksum');
}

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function flatHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (header ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals > 0) cookies[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  return cookies;
}

export type ContextOptions = { ip?: string; scheme?: 'http' | 'https'; country?: string };

/** A context over a request/response pair, with host, path, query, domain and facts set. */
export function contextFor(config: ActiveConfig, req: IncomingMessage, res: ServerResponse, options: ContextOptions = {}): RequestContext {
  const ctx = new RequestContext(req, res, { config, requestId: 'req-test', clientIp: options.ip ?? '192.0.2.10', scheme: options.scheme ?? 'http' });
  const target = req.url ?? '/';
  const mark = target.indexOf('?');
  ctx.path = mark === -1 ? target : target.slice(0, mark);
  ctx.query = mark === -1 ? '' : target.slice(mark + 1);
  ctx.host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  ctx.domain = domainForHost(config, ctx.host);
  ctx.country = options.country;
  const headers = flatHeaders(req.headers);
  ctx.facts = prepareRequest({
    host: ctx.host,
    path: decodedPath(ctx.path),
    method: ctx.method,
    query: Object.fromEntries(new URLSearchParams(ctx.query)),
    headers,
    cookies: cookiesOf(headers.cookie),
    country: options.country,
    ip: ctx.clientIp,
  });
  return ctx;
}

export type FakeRequest = { url: string; method?: string; headers?: Record<string, string> } & ContextOptions;

/** A context over a minimal fake request (method, url, headers, socket) and an unused response. */
export function fakeContext(config: ActiveConfig, request: FakeRequest): RequestContext {
  const headers = { host: 'example.com', ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])) };
  const req = { method: request.method ?? 'GET', url: request.url, headers, socket: { remoteAddress: request.ip ?? '192.0.2.10' } } as unknown as IncomingMessage;
  return contextFor(config, req, {} as ServerResponse, request);
}

// Test support for the rule and security phases: a compiled active config built from
// a small snapshot, and a RequestContext filled in as the door, the host and country
// phases and the facts step would. Table tests use a minimal fake request (method, url, headers,
// socket) and response; the challenge tests use real node:http pairs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { compileActiveConfig, domainForHost, type ActiveConfig } from '../../../src/edge/config/active-config.js';
import { RequestContext } from '../../../src/edge/pipeline/context.js';
import { LazyRequestFacts } from '../../../src/edge/pipeline/request-facts.js';
import { dropClientClaims, isRefusal, parseRequestHead } from '../../../src/edge/pipeline/request-head.js';
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

export type ContextOptions = { ip?: string; scheme?: 'http' | 'https'; country?: string };

/** A context over a request/response pair, with host, path and query as the door sets them, and domain and facts set. */
export function contextFor(config: ActiveConfig, req: IncomingMessage, res: ServerResponse, options: ContextOptions = {}): RequestContext {
  const ctx = new RequestContext(req, res, { config, requestId: 'req-test', clientIp: options.ip ?? '192.0.2.10', peer: options.ip ?? '192.0.2.10', scheme: options.scheme ?? 'http' });
  const head = parseRequestHead(req);
  if (isRefusal(head)) throw new Error(`the door refuses this test request: ${head.detail}`);
  Object.assign(ctx, head);
  if (head.host) ctx.headers.host = head.host;
  dropClientClaims(ctx.headers, req.rawHeaders);
  ctx.domain = domainForHost(config, ctx.host);
  ctx.country = options.country;
  ctx.facts = prepareRequest(new LazyRequestFacts(ctx));
  return ctx;
}

export type FakeRequest = { url: string; method?: string; headers?: Record<string, string> } & ContextOptions;

/** A context over a minimal fake request (method, url, headers, socket) and an unused response. */
export function fakeContext(config: ActiveConfig, request: FakeRequest): RequestContext {
  const headers = { host: 'example.com', ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])) };
  const rawHeaders = Object.entries(headers).flat();
  const req = { method: request.method ?? 'GET', url: request.url, headers, rawHeaders, socket: { remoteAddress: request.ip ?? '192.0.2.10' } } as unknown as IncomingMessage;
  return contextFor(config, req, {} as ServerResponse, request);
}

import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { signedHeaders } from '../../src/shared/signing.js';
import type { Route } from '../../src/http/route.js';
import { loadApiSchemas } from '../../src/http/validation.js';
import { TestCore, type Json } from './core.js';
import { makeTestChain } from './test-certificates.js';
import { validBodies, validBodyFor, type SweepFixtures } from './valid-bodies.js';

const API_TOKEN = 'seeded-api-token';
const EDGE_TOKEN = 'cdnedge_seeded-core-token-0123456789';
const EDGE_ID = 'seeded-edge';
const ADMIN = { username: 'seeder', password: 'seeder-password-1' };
const DOMAIN = 'seeded.example';
const REFUSED_REPO = 'https://git.example/refused.git';
const ACME_TOKEN = 'seeded-acme-token';
// The push-hook secret (GitLab sends it as X-Gitlab-Token).
const WEBHOOK_SECRET = 'seeded-webhook-secret';
// A refused GitOps run left for a caller to accept.
const UNACCEPTED_RUN = { repo: REFUSED_REPO, commit_sha: 'c'.repeat(40) };
/** The hostname of the seeded domain. */
export const SEEDED_DOMAIN = DOMAIN;
let apiSchemas: ReturnType<typeof loadApiSchemas> | undefined;
const RULE_KINDS = { redirects: 'redirect-rule', 'rate-limits': 'rate-limit-rule', 'waf-rules': 'waf-rule', headers: 'header-rule', 'ip-rules': 'ip-rule', 'cache-rules': 'cache-rule', 'page-rules': 'page-rule' };

/**
 * A core on a fresh database holding one of everything a GET can list (a domain with a record,
 * geo routes, an origin, a rule of each kind, a purge, a certificate, an ACME challenge, a DNS
 * sync event, a snapshot and canary versions, an edge with a heartbeat, usage and security
 * events, GitOps runs and an acceptance): so list answers carry records, not only `[]`, and
 * every write finds what it acts on.
 */
export class SeededCore {
  private constructor(
    readonly core: TestCore,
    readonly session: string,
    /** The ids of the seeded records, by the path parameter name that addresses them. */
    readonly ids: Record<string, string>,
    /** A rule id per rule path segment (`redirects`, `waf-rules`...). */
    readonly ruleIds: Record<string, string>,
    /** A valid body per request schema id, naming the seeded records (test/support/valid-bodies.ts). */
    readonly bodies: Record<string, unknown>,
  ) {}

  /** A core seeded as described above; `empty` seeds nothing but a registered edge (for the answers of a new installation). */
  static async start({ empty = false } = {}): Promise<SeededCore> {
    const core = await TestCore.start({
      CDN_API_TOKEN: API_TOKEN,
      CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN,
      CDN_BOOTSTRAP_ADMIN_USER: 'true',
      CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username,
      CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED: 'true',
      // Delegation lookups ask a loopback port where nothing answers: refused at once, no network.
      CDN_NAMESERVER_RESOLVERS: '127.0.0.1:9',
      CDN_NAMESERVER_LOOKUP_TIMEOUT_MS: '500',
      CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'),
      CDN_GITOPS_WEBHOOK_SECRET: WEBHOOK_SECRET,
    });
    core.token = API_TOKEN;
    try {
      const session = (await core.post('/api/v1/admin/login', ADMIN, 200)).data.token as string;
      if (empty) {
        await signedPost(core, '/api/v1/edge/register', { edge_id: EDGE_ID, hostname: 'edge-1' });
        return new SeededCore(core, session, {}, {}, {});
      }
      const { ids, ruleIds, bodies } = await seed(core);
      return new SeededCore(core, session, ids, ruleIds, bodies);
    } catch (error) {
      await core.stop();
      throw error;
    }
  }

  get url(): string {
    return this.core.url;
  }

  stop(): Promise<void> {
    return this.core.stop();
  }

  /** The route's path with the seeded records' ids in place of its parameters (`missing` for one nothing was seeded for). */
  pathOf(route: Route): string {
    return route.path.replace(/:(\w+)/g, (_match, name: string) => {
      if (name === 'ruleId') return this.ruleIds[route.path.split('/').at(-2)!] ?? 'missing';
      return this.ids[name] ?? 'missing';
    });
  }

  /**
   * A request that `route` answers with success on this core: its valid body (an empty one for a
   * PATCH, which changes nothing and answers the record), with real credentials. A certificate
   * upload sends a real chain, the push hook GitLab's token, an acceptance the run left to accept.
   */
  async writeRequestOf(route: Route): Promise<{ path: string; headers: Record<string, string>; body?: string }> {
    const method = route.method.toUpperCase();
    const path = this.pathOf(route);
    const body = route.method === 'patch' && !this.requiresFields(route) ? '{}' : await this.validBodyOf(route);
    const headers = { ...this.headersFor(route, method, path, body ?? ''), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    if (route.path === '/api/v1/gitops/webhook') Object.assign(headers, { 'x-gitlab-token': WEBHOOK_SECRET });
    return { path, headers, body };
  }

  private requiresFields(route: Route): boolean {
    const schema = route.body === undefined ? undefined : ((apiSchemas ??= loadApiSchemas()).getSchema(route.body)?.schema as { required?: string[] } | undefined);
    return (schema?.required ?? []).length > 0;
  }

  private async validBodyOf(route: Route): Promise<string | undefined> {
    if (route.path === '/api/v1/gitops/webhook') return JSON.stringify({ ref: 'refs/heads/main' });
    if (route.path === '/api/v1/gitops/acceptances') return JSON.stringify({ ...UNACCEPTED_RUN, reason: 'intended' });
    if (route.body === 'ssl-manual-certificate') {
      const chain = await makeTestChain([DOMAIN]);
      return JSON.stringify({ certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate, hostnames: [DOMAIN] });
    }
    return route.body === undefined ? undefined : JSON.stringify(validBodyFor(this.bodies, route.body));
  }

  /** The credentials a route's auth level wants, for a request of `method` to `path` with `body`. */
  headersFor(route: Route, method: string, path: string, body = ''): Record<string, string> {
    if (route.auth === 'api') return { authorization: `Bearer ${API_TOKEN}` };
    if (route.auth === 'admin-session') return { authorization: `Bearer ${this.session}` };
    if (route.auth === 'edge') return signedHeaders({ token: EDGE_TOKEN, edgeId: EDGE_ID, method, pathWithQuery: path, body });
    return {};
  }
}

async function signedPost(core: TestCore, path: string, body: unknown): Promise<Json> {
  const text = JSON.stringify(body);
  const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: EDGE_ID, method: 'POST', pathWithQuery: path, body: text });
  const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: text });
  expect(response.status, await response.clone().text()).to.equal(200);
  return response.json();
}

// Events a minute old: an analytics window ends at the current second, exclusive.
function aMinuteAgo(body: unknown): unknown {
  const batch = body as { events: { timestamp: number }[] };
  return { ...batch, events: batch.events.map((event) => ({ ...event, timestamp: event.timestamp - 60 })) };
}

// A refused GitOps run and the operator's acceptance of its plan, then a later refused run not accepted yet.
async function seedAcceptance(core: TestCore, bodies: Record<string, unknown>): Promise<void> {
  const refused = { ...(bodies['gitops-run'] as object), repo: REFUSED_REPO, commit_sha: 'b'.repeat(40), status: 'refused' };
  await core.post('/api/v1/gitops/runs', refused, 201);
  await core.post('/api/v1/gitops/acceptances', { repo: REFUSED_REPO, commit_sha: 'b'.repeat(40), reason: 'intended' }, 201);
  await core.post('/api/v1/gitops/runs', { ...refused, ...UNACCEPTED_RUN }, 201);
}

// What a DNS sync attempt, an ACME order and a certificate upload store, written as those write
// them: a PowerDNS server and a certificate authority are outside this core.
async function seedPublishedFacts(core: TestCore, domainId: string): Promise<void> {
  await core.db.dnsSyncEvent.create({ data: { domain_id: domainId, zone_name: DOMAIN, action: 'patch', success: false, status_code: 500, error: 'PowerDNS answered 500', duration_ms: 12, changes: 2 } });
  const now = Date.now();
  await core.db.acmeChallenge.create({ data: { token: ACME_TOKEN, domain_id: domainId, hostname: DOMAIN, key_authorization: `${ACME_TOKEN}.seeded-thumbprint`, expires_at: new Date(now + 3600000) } });
  await core.db.sslCertificate.create({
    data: { domain_id: domainId, source: 'manual', status: 'active', hostnames: [DOMAIN, `*.${DOMAIN}`], issuer: 'CN=Seeded CA', serial_number: '01', fingerprint_sha256: 'ab'.repeat(32), not_before: new Date(now - 86400000), not_after: new Date(now + 90 * 86400000) },
  });
}

// What the canary loop records (docs/rollout.md): a version that failed its bake and a newer one
// baking, so an operator's promote (the newer) and abort (then the failed one) each find one.
async function seedCanaries(core: TestCore, version: number): Promise<void> {
  const started_at = new Date(Date.now() - 60000);
  const numbers = { canary_requests: 200, canary_error_percent: 5, baseline_error_percent: 0.5 };
  await core.db.configCanary.create({ data: { version, baseline_version: version - 1, state: 'failed', canary_edges: [EDGE_ID], started_at, decided_at: new Date(), reason: 'error rate 5% above the baseline 0.5%', numbers } });
  await core.db.configCanary.create({ data: { version: version + 1, baseline_version: version - 1, state: 'baking', canary_edges: [EDGE_ID], started_at } });
}

async function seed(core: TestCore): Promise<{ ids: Record<string, string>; ruleIds: Record<string, string>; bodies: Record<string, unknown> }> {
  const domain = await core.createDomain(DOMAIN);
  const record = (await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10', routing_policy: 'geo' }, 201)).data;
  const origin = (await core.post(`/api/v1/domains/${domain.id}/origins`, { host: `origin.${DOMAIN}` }, 201)).data;
  const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'everything' }, 201)).data;
  const snapshot = (await core.post('/api/v1/config/snapshots/rebuild', undefined, 200)).data;
  const fixtures: SweepFixtures = { domain: DOMAIN, domainId: domain.id, originId: origin.id, purgeId: purge.id, snapshotVersion: snapshot.version, edgeId: EDGE_ID, admin: ADMIN };
  const bodies = validBodies(fixtures);
  await core.put(`/api/v1/domains/${domain.id}/dns/records/${record.id}/geo-routes`, bodies['geo-routes-put'], 200);
  const ruleIds: Record<string, string> = {};
  for (const [segment, schema] of Object.entries(RULE_KINDS)) {
    const body = { ...(bodies[`${schema}-create`] as object), name: `seeded-${segment}` };
    ruleIds[segment] = (await core.post(`/api/v1/domains/${domain.id}/${segment}`, body, 201)).data.id;
  }
  await core.post('/api/v1/gitops/runs', bodies['gitops-run'], 201);
  await seedAcceptance(core, bodies);
  await seedPublishedFacts(core, domain.id);
  await seedCanaries(core, snapshot.version);
  await signedPost(core, '/api/v1/edge/register', bodies['edge-register']);
  await signedPost(core, '/api/v1/edge/heartbeat', bodies['edge-heartbeat']);
  await signedPost(core, '/api/v1/collector/usage', aMinuteAgo(bodies['collector-usage']));
  await signedPost(core, '/api/v1/collector/security-events', aMinuteAgo(bodies['collector-security-events']));
  await signedPost(core, '/api/v1/collector/origin-health', bodies['collector-origin-health']);
  const ids = { domainId: domain.id, recordId: record.id, originId: origin.id, requestId: purge.id, group: 'analytics', version: String(snapshot.version), token: ACME_TOKEN };
  return { ids, ruleIds, bodies };
}

// Deletions after every other write (the domain's last, it takes the rest with it), the logout last of all.
function writeRank(route: Route): number {
  if (route.path === '/api/v1/admin/logout') return 3;
  if (route.method === 'delete') return route.path === '/api/v1/domains/:domainId' ? 2 : 1;
  return 0;
}

/** The routes that write, in an order in which each finds what it acts on. */
export function writeOrder(routes: Route[]): Route[] {
  return routes.filter((route) => route.method !== 'get').sort((a, b) => writeRank(a) - writeRank(b));
}

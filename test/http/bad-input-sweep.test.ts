import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { coreRoutes } from '../../src/core/routes.js';
import type { Route } from '../../src/http/route.js';
import { loadApiSchemas } from '../../src/http/validation.js';
import { ActiveVersion } from '../../src/publish/active-version.js';
import { signedHeaders } from '../../src/shared/signing.js';
import { probesFor, type Probe, type ValidParams } from '../support/bad-input-probes.js';
import { TestCore, type Json } from '../support/core.js';
import { tableFingerprinter } from '../support/database-fingerprint.js';
import { validBodies, type SweepFixtures } from '../support/valid-bodies.js';

const API_TOKEN = 'sweep-api-token';
const EDGE_TOKEN = 'cdnedge_bad-input-sweep-token-0123456789';
const ADMIN = { username: 'sweeper', password: 'sweeper-password-1' };
const SWEEPER_ADDRESS = '192.0.2.200';
const EDGE_ID = 'sweep-edge';
const RULE_KINDS = { redirects: 'redirect-rule', 'rate-limits': 'rate-limit-rule', 'waf-rules': 'waf-rule', headers: 'header-rule', 'ip-rules': 'ip-rule', 'cache-rules': 'cache-rule', 'page-rules': 'page-rule' };
// Written by refused requests on purpose: the nonce of every signed request, the token's last use,
// and the refused heartbeat recorded on the edge node.
const WRITTEN_BY_REFUSALS = ['edge_nonces', 'edge_tokens', 'edge_nodes'];

const READ_CONCURRENCY = 8;
// Paging every list must refuse with 422 naming the parameter (docs/api.md, "Lists").
// Lists that are one bounded set, sent whole: a record's geo routes (at most 300, replaced as a set by
// PUT) and the countries an edge can be placed in.
const WHOLE_SETS = ['/api/v1/domains/:domainId/dns/records/:recordId/geo-routes', '/api/v1/edge-countries'];
const BAD_PAGING = { offset: ['-1', 'abc', '1.5', '', '99999999999999999999', '1e3'], limit: ['0', '501', '-1', 'abc', '', '99999999999999999999'] };

type Answer = { status: number; text: string; headers: Headers };

// Every route of the route table, sent paths, queries and bodies that no caller should send, with valid
// credentials for its auth level: the answer is never a 5xx, every refusal is a 4xx `{error, field?, detail?}`
// and changes no table, and every answer carries the baseline headers (nosniff, no-store).
describe('bad input on every route', function () {
  this.timeout(180000);
  let core: TestCore;
  let routes: Route[];
  let ajv: ReturnType<typeof loadApiSchemas>;
  let fixtures: SweepFixtures;
  let valid: ValidParams;
  let session: string | undefined;

  async function headersFor(route: Route, method: string, path: string, body?: string): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (route.auth === 'api') headers.authorization = `Bearer ${API_TOKEN}`;
    if (route.auth === 'admin-session') headers.authorization = `Bearer ${(session ??= await login())}`;
    if (route.auth === 'edge') Object.assign(headers, signedHeaders({ token: EDGE_TOKEN, edgeId: EDGE_ID, method, pathWithQuery: path, body: body ?? '' }));
    return headers;
  }

  async function send(probe: Probe, headers: Record<string, string>): Promise<Answer> {
    const response = await fetch(`${core.url}${probe.path}`, { method: probe.method, headers: { ...headers, ...probe.headers }, body: probe.body });
    const answer = { status: response.status, text: await response.text(), headers: response.headers };
    // A logout that went through ends the session; the next admin request logs in again.
    if (probe.route.auth === 'admin-session' && probe.method !== 'GET' && answer.status < 300) session = undefined;
    return answer;
  }

  // The login probes (valid bodies, wrong credentials) trip the login throttle of the username and of
  // the probes' address. The sweep's own logins come through the trusted loopback proxy from an address
  // of their own that logged in first, before any probe, so the throttle lets them in (docs/api.md).
  async function login(): Promise<string> {
    return (await core.post('/api/v1/admin/login', ADMIN, 200, { headers: { 'x-forwarded-for': SWEEPER_ADDRESS } })).data.token;
  }

  async function signedPost(path: string, body: unknown): Promise<Json> {
    const text = JSON.stringify(body);
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: EDGE_ID, method: 'POST', pathWithQuery: path, body: text });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: text });
    expect(response.status, await response.clone().text()).to.equal(200);
    return response.json();
  }

  async function seed(): Promise<void> {
    const domain = await core.createDomain('sweep.example');
    const record = (await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10', routing_policy: 'geo' }, 201)).data;
    const origin = (await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'origin.sweep.example' }, 201)).data;
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'everything' }, 201)).data;
    const snapshot = (await core.post('/api/v1/config/snapshots/rebuild', undefined, 200)).data;
    fixtures = { domain: 'sweep.example', domainId: domain.id, originId: origin.id, purgeId: purge.id, snapshotVersion: snapshot.version, edgeId: EDGE_ID, admin: ADMIN };
    const bodies = validBodies(fixtures);
    const ruleIds: Record<string, string> = {};
    for (const [segment, schema] of Object.entries(RULE_KINDS)) {
      const body = { ...(bodies[`${schema}-create`] as object), name: `sweep-${segment}` };
      ruleIds[segment] = (await core.post(`/api/v1/domains/${domain.id}/${segment}`, body, 201)).data.id;
    }
    await signedPost('/api/v1/edge/register', bodies['edge-register']);
    valid = { byName: { domainId: domain.id, recordId: record.id, originId: origin.id, requestId: purge.id, group: 'analytics', version: String(snapshot.version) }, ruleIds };
  }

  before(async () => {
    core = await TestCore.start({
      CDN_API_TOKEN: API_TOKEN,
      CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN,
      CDN_BOOTSTRAP_ADMIN_USER: 'true',
      CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username,
      CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED: 'true',
      CDN_API_TRUSTED_PROXIES: 'loopback',
    });
    core.token = API_TOKEN;
    session = await login();
    const logger = pino({ level: 'silent' });
    ajv = loadApiSchemas();
    const config = loadConfig({ CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED: 'true' });
    routes = coreRoutes({ config, prisma: core.db, pool: core.core.connection.pool, ajv, logger, activeVersion: new ActiveVersion(core.core.connection.pool, core.databaseUrl, logger) });
    await seed();
  });
  after(async () => {
    await core.stop();
  });

  function problemWith(answer: Answer): string | undefined {
    if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 200)}`;
    if (answer.headers.get('x-content-type-options') !== 'nosniff' || answer.headers.get('cache-control') !== 'no-store') return `answered ${answer.status} without nosniff and no-store`;
    if (answer.status < 400) return undefined;
    let body: Json;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return `answered ${answer.status} without a JSON body`;
    }
    const shaped = typeof body?.error === 'string' && ['field', 'detail'].every((key) => body[key] === undefined || typeof body[key] === 'string');
    return shaped ? undefined : `answered ${answer.status} with ${answer.text.slice(0, 200)}`;
  }

  function where(probe: Probe): string {
    return `${probe.method} ${probe.route.path} [${probe.label}]`;
  }

  // Reads change nothing, so they go several at a time.
  async function sweepReads(probes: Probe[], failures: string[]): Promise<void> {
    const queue = [...probes];
    const worker = async () => {
      for (let probe = queue.shift(); probe; probe = queue.shift()) {
        const problem = problemWith(await send(probe, await headersFor(probe.route, probe.method, probe.path, probe.body)));
        if (problem) failures.push(`${where(probe)} ${problem}`);
      }
    };
    await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  }

  // Writes go one after the other, and around each refused one the tables are compared;
  // the digest taken after one refusal is the "before" of the next while nothing else wrote.
  async function sweepWrites(probes: Probe[], failures: string[]): Promise<void> {
    const fingerprint = await tableFingerprinter(core.core.connection.pool, WRITTEN_BY_REFUSALS);
    let known: Record<string, string> | undefined;
    for (const probe of probes) {
      const sessionBefore = session;
      const headers = await headersFor(probe.route, probe.method, probe.path, probe.body);
      if (session !== sessionBefore) known = undefined; // logging in writes a session
      const before = (known ??= await fingerprint());
      const answer = await send(probe, headers);
      known = undefined;
      const problem = problemWith(answer);
      if (problem) failures.push(`${where(probe)} ${problem}`);
      if (answer.status < 400) continue;
      known = await fingerprint();
      const changed = Object.keys(before).filter((table) => before[table] !== known![table]);
      if (changed.length > 0) failures.push(`${where(probe)} answered ${answer.status} but changed ${changed.join(', ')}`);
    }
  }

  async function sweep(select: (route: Route) => Probe[]): Promise<{ sent: number; failures: string[] }> {
    const probes = routes.flatMap(select);
    const failures: string[] = [];
    await sweepReads(probes.filter((probe) => probe.method === 'GET'), failures);
    await sweepWrites(probes.filter((probe) => probe.method !== 'GET'), failures);
    return { sent: probes.length, failures };
  }

  function expectNoFailures(result: { sent: number; failures: string[] }): void {
    expect(result.sent).to.be.greaterThan(0);
    expect(result.failures, `${result.failures.length} of ${result.sent} probes failed:\n${result.failures.slice(0, 60).join('\n')}`).to.deep.equal([]);
  }

  it('covers the whole route table and has a valid body for every request schema', () => {
    expect(routes.length).to.be.greaterThan(100);
    const bodies = validBodies(fixtures);
    for (const route of routes.filter((candidate) => candidate.body)) expect(probesFor(route, ajv, valid, bodies)).to.not.be.empty;
  });

  async function pagingProblems(route: Route): Promise<string[]> {
    const base = route.path.replace(/:(\w+)/g, (_match, name: string) => (name === 'ruleId' ? valid.ruleIds[route.path.split('/').at(-2)!] : valid.byName[name]));
    const probes = Object.entries(BAD_PAGING).flatMap(([name, values]) => values.map((value) => ({ name, path: `${base}?${name}=${value}` })));
    const problems: string[] = [];
    for (const { name, path } of probes) {
      const answer = await send({ label: 'paging', route, method: 'GET', path }, await headersFor(route, 'GET', path));
      const field = answer.status === 422 ? JSON.parse(answer.text).field : undefined;
      const refused = answer.status === 422 && field === name;
      if (refused !== Boolean(route.paged)) problems.push(`GET ${path} answered ${answer.status} ${answer.text.slice(0, 120)} (route ${route.paged ? 'is' : 'is not'} declared paged)`);
    }
    return problems;
  }

  it('refuses out-of-range paging on every list the same way, and only lists read paging', async () => {
    const gets = routes.filter((route) => route.method === 'get');
    expect(gets.filter((route) => route.paged).map((route) => route.path)).to.include('/api/v1/overview/warnings');
    const problems = (await Promise.all(gets.map(pagingProblems))).flat();
    for (const route of gets.filter((candidate) => !candidate.paged && !WHOLE_SETS.includes(candidate.path))) {
      const path = route.path.replace(/:(\w+)/g, (_match, name: string) => (name === 'ruleId' ? valid.ruleIds[route.path.split('/').at(-2)!] : valid.byName[name]));
      const answer = await send({ label: 'list', route, method: 'GET', path }, await headersFor(route, 'GET', path));
      if (answer.status === 200 && Array.isArray(JSON.parse(answer.text).data)) problems.push(`GET ${route.path} answers a list but is not declared paged`);
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('answers bad path parameters, query values, body fields, deep bodies and mislabelled encodings with a 4xx that changes nothing', async () => {
    const bodies = validBodies(fixtures);
    expectNoFailures(await sweep((route) => probesFor(route, ajv, valid, bodies)));
  });
});

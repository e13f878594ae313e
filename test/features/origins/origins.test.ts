import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('origins API', () => {
  let core: TestCore;
  let domain: Json;
  let path: string;
  before(async () => {
    core = await TestCore.start({ CDN_ORIGIN_CHECK_TIMEOUT_MS: '1000' });
    domain = await core.createDomain('origins.example');
    path = `/api/v1/domains/${domain.id}/origins`;
  });
  after(async () => {
    await core.stop();
  });

  const create = async (body: Record<string, unknown>) => (await core.post(path, body, 201)).data;

  it('creates an origin with documented defaults', async () => {
    const origin = await create({ host: 'Origin-A.Example.NET' });
    expect(origin).to.include({
      domain_id: domain.id,
      host: 'origin-a.example.net',
      scheme: 'https',
      port: 443,
      role: 'primary',
      enabled: true,
      health_status: 'unknown',
      weight: 100,
      drained: false,
      monitored: false,
      max_retries: 1,
      retry_non_idempotent: false,
      retry_budget_percent: 20,
      circuit_breaker_enabled: true,
      circuit_breaker_failure_threshold: 5,
      connect_timeout_ms: 3000,
      read_timeout_ms: 30000,
      shield: false,
      health_check_path: '/',
    });
    expect(origin.max_connections).to.equal(null);
    expect(origin.created_at).to.be.a('number');
  });

  it('defaults the port to 80 for http', async () => {
    expect((await create({ host: 'plain.example.net', scheme: 'http' })).port).to.equal(80);
  });

  it('accepts IPv4 and IPv6 hosts and the resilience fields', async () => {
    expect((await create({ host: '192.0.2.80', port: 8443 })).host).to.equal('192.0.2.80');
    const v6 = await create({ host: '[2001:DB8::80]', role: 'backup', weight: 5, drained: true, monitored: true, max_retries: 3, circuit_breaker_cooldown_seconds: 60, max_connections: 200, shield: true, shield_region: 'eu-west' });
    expect(v6).to.include({ host: '2001:db8::80', role: 'backup', weight: 5, drained: true, monitored: true, max_retries: 3, circuit_breaker_cooldown_seconds: 60, max_connections: 200, shield: true, shield_region: 'eu-west' });
  });

  it('requires a host on create', async () => {
    expect((await core.post(path, { port: 8080 }, 422)).field).to.equal('host');
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['port', { host: 'a.example.net', port: 0 }],
    ['port', { host: 'a.example.net', port: 65536 }],
    ['scheme', { host: 'a.example.net', scheme: 'ftp' }],
    ['role', { host: 'a.example.net', role: 'shield' }],
    ['weight', { host: 'a.example.net', weight: 0 }],
    ['max_retries', { host: 'a.example.net', max_retries: 6 }],
    ['host', { host: 'bad host' }],
    ['health_status', { host: 'a.example.net', health_status: 'healthy' }],
    ['colour', { host: 'a.example.net', colour: 'blue' }],
  ];
  for (const [field, body] of invalid) {
    it(`rejects ${JSON.stringify(body)} with 422 on ${field} and stores nothing`, async () => {
      const before = await core.rowCounts();
      expect((await core.post(path, body, 422)).field).to.equal(field);
      expect(await core.rowCounts()).to.deep.equal(before);
    });
  }

  it('rejects a second origin with the same scheme, host and port', async () => {
    await create({ host: 'twin.example.net' });
    expect((await core.post(path, { host: 'TWIN.example.net', port: 443 }, 422)).field).to.equal('host');
    const other = await create({ host: 'twin.example.net', port: 8443 });
    expect((await core.patch(`${path}/${other.id}`, { port: 443 }, 422)).field).to.equal('host');
  });

  it('patches fields and deletes', async () => {
    const origin = await create({ host: 'patch.example.net' });
    const patched = (await core.patch(`${path}/${origin.id}`, { role: 'backup', enabled: false, weight: 250 })).data;
    expect(patched).to.include({ role: 'backup', enabled: false, weight: 250, host: 'patch.example.net' });
    expect(await core.delete(`${path}/${origin.id}`)).to.deep.equal({ ok: true });
    await core.patch(`${path}/${origin.id}`, { weight: 1 }, 404);
  });

  it('answers 404 for unknown origins and domains', async () => {
    await core.get('/api/v1/domains/missing/origins', 404);
    await core.post('/api/v1/domains/missing/origins', { host: 'x.example.net' }, 404);
    await core.delete(`${path}/missing`, 404);
    await core.post(`${path}/missing/check`, undefined, 404);
  });

  it('lists primaries before backups', async () => {
    const roles = (await core.get(`${path}?limit=500`)).data.map((origin: Json) => origin.role);
    expect(roles.indexOf('backup')).to.be.greaterThan(roles.lastIndexOf('primary'));
  });

  describe('manual check', () => {
    it('probes a live HTTP origin with the domain as Host and leaves health_status alone', async () => {
      const seen: string[] = [];
      const server = http.createServer((req, res) => {
        seen.push(`${req.method} ${req.url} ${req.headers.host}`);
        res.end('ok');
      });
      const port = await listen(server);
      try {
        const origin = await create({ host: '127.0.0.1', scheme: 'http', port, health_check_path: '/healthz' });
        const report = (await core.post(`${path}/${origin.id}/check`, undefined)).data;
        expect(report).to.include({ origin_id: origin.id, reachable: true, target: `http://127.0.0.1:${port}/healthz` });
        expect(report.tcp.ok).to.equal(true);
        expect(report.http).to.include({ ok: true, status: 200 });
        expect(seen).to.deep.equal(['GET /healthz origins.example']);
        expect((await core.db.origin.findUniqueOrThrow({ where: { id: origin.id } })).health_status).to.equal('unknown');
      } finally {
        server.close();
      }
    });

    it('reports a 5xx origin as unreachable with its status', async () => {
      const server = http.createServer((_req, res) => {
        res.statusCode = 503;
        res.end();
      });
      const port = await listen(server);
      try {
        const origin = await create({ host: '127.0.0.1', scheme: 'http', port });
        const report = (await core.post(`${path}/${origin.id}/check`, undefined)).data;
        expect(report.reachable).to.equal(false);
        expect(report.http.status).to.equal(503);
      } finally {
        server.close();
      }
    });

    it('reports a closed port as a failed TCP connect', async () => {
      const server = http.createServer();
      const port = await listen(server);
      await new Promise((resolve) => server.close(resolve));
      const origin = await create({ host: '127.0.0.1', scheme: 'http', port });
      const report = (await core.post(`${path}/${origin.id}/check`, undefined)).data;
      expect(report.reachable).to.equal(false);
      expect(report.tcp).to.include({ ok: false, error: 'ECONNREFUSED' });
      expect(report).to.not.have.property('http');
    });

    it('reports a failed TLS handshake against a plain-HTTP port', async () => {
      const server = http.createServer((_req, res) => res.end());
      const port = await listen(server);
      try {
        const origin = await create({ host: '127.0.0.1', scheme: 'https', port });
        const report = (await core.post(`${path}/${origin.id}/check`, undefined)).data;
        expect(report.reachable).to.equal(false);
        expect(report.tcp.ok).to.equal(true);
        expect(report.tls.ok).to.equal(false);
      } finally {
        server.close();
      }
    });
  });
});

import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PowerDnsClient, PowerDnsError } from '../../../src/publish/dns/powerdns-client.js';
import { freePort } from '../../support/cluster.js';

type Answer = { status: number; body?: unknown; headers?: Record<string, string>; hang?: boolean };

// What real PowerDNS cannot be made to do on demand (a 503, a 429, a hang): a loopback server answering from a script.
describe('PowerDnsClient', () => {
  let server: http.Server;
  let script: Answer[] = [];
  const seen: { method: string; url: string; key: string | undefined; body: string }[] = [];
  const sleeps: number[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, key: req.headers['x-api-key'] as string | undefined, body });
        const answer = script.shift() ?? { status: 500 };
        if (answer.hang) return;
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    script = [];
    seen.length = 0;
    sleeps.length = 0;
  });

  const client = (overrides: Partial<ConstructorParameters<typeof PowerDnsClient>[0]> = {}) =>
    new PowerDnsClient({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      apiKey: 'k3y',
      serverId: 'localhost',
      timeoutMs: 2000,
      maxAttempts: 3,
      backoff: { firstMs: 100, maxMs: 1000 },
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 1,
      ...overrides,
    });

  const failure = async (promise: Promise<unknown>): Promise<PowerDnsError> => {
    try {
      await promise;
    } catch (error) {
      expect(error).to.be.instanceOf(PowerDnsError);
      return error as PowerDnsError;
    }
    throw new Error('expected a PowerDnsError');
  };

  it('sends the key and the server id, and reads a zone (null when the server has none)', async () => {
    script = [{ status: 200, body: { name: 'example.com.', rrsets: [] } }, { status: 404, body: { error: 'Not Found' } }];
    expect(await client().zone('example.com')).to.deep.include({ name: 'example.com.' });
    expect(await client().zone('missing.example')).to.equal(null);
    expect(seen.map((call) => [call.method, call.url, call.key])).to.deep.equal([
      ['GET', '/api/v1/servers/localhost/zones/example.com.', 'k3y'],
      ['GET', '/api/v1/servers/localhost/zones/missing.example.', 'k3y'],
    ]);
  });

  it('returns a 4xx at once, never retried, with PowerDNS\'s error text', async () => {
    script = [{ status: 422, body: { error: 'RRset www.example.com. IN CNAME: Conflicts with pre-existing RRset' } }];
    const error = await failure(client().patchZone('example.com', []));
    expect(error).to.include({ status: 422, retryable: false, attempts: 1 });
    expect(error.message).to.equal('PATCH /zones/example.com.: 422 RRset www.example.com. IN CNAME: Conflicts with pre-existing RRset');
    expect(seen).to.have.length(1);
    expect(sleeps).to.deep.equal([]);
  });

  it('retries 5xx with exponential backoff, a bounded number of times', async () => {
    script = [{ status: 503 }, { status: 502 }, { status: 500, body: { error: 'backend down' } }];
    const error = await failure(client().server());
    expect(error).to.include({ status: 500, retryable: true, attempts: 3 });
    expect(error.message).to.match(/500 backend down$/);
    expect(sleeps).to.deep.equal([100, 200]);
  });

  it('succeeds when a retry does', async () => {
    script = [{ status: 503 }, { status: 201 }];
    await client().createZone({ name: 'example.com.', account: 'cdn', rrsets: [] });
    expect(seen).to.have.length(2);
    expect(JSON.parse(seen[1].body)).to.deep.include({ name: 'example.com.', kind: 'Native', account: 'cdn', soa_edit_api: 'DEFAULT', nameservers: [] });
  });

  it('waits what a 429 Retry-After asks, within the backoff bound', async () => {
    script = [{ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '60' } }, { status: 204 }];
    await client().deleteZone('example.com');
    expect(sleeps).to.deep.equal([0, 1000]);
  });

  it('retries a refused connection, then reports it with no status', async () => {
    const error = await failure(client({ url: `http://127.0.0.1:${await freePort()}` }).zones());
    expect(error).to.include({ status: null, retryable: true, attempts: 3 });
    expect(error.message).to.match(/ECONNREFUSED/);
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    script = [{ status: 200, hang: true }];
    const error = await failure(client({ timeoutMs: 200, maxAttempts: 1 }).server());
    expect(error).to.include({ status: null, attempts: 1 });
    expect(error.message).to.match(/no answer within 200 ms/);
  });

  it('spreads retries with full jitter', async () => {
    script = [{ status: 503 }, { status: 503 }, { status: 200, body: {} }];
    await client({ random: () => 0.5 }).server();
    expect(sleeps).to.deep.equal([50, 100]);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { createCoreClient, CoreRequestError, type CoreClient } from '../../../src/edge/agent/core-client.js';
import { TestCore } from '../../support/core.js';

const EDGE_TOKEN = 'cdnedge_agent-core-client-tests-0123456789';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

async function failure(promise: Promise<unknown>): Promise<CoreRequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(CoreRequestError);
    return error as CoreRequestError;
  }
  throw new Error('expected the request to fail');
}

describe('edge agent: the signed core client', () => {
  describe('against a real core', () => {
    let core: TestCore;
    let client: CoreClient;
    before(async () => {
      core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
      client = createCoreClient({ coreUrl: core.url, edgeId: 'edge-client-1', token: EDGE_TOKEN });
    });
    after(async () => {
      client.close();
      await core.stop();
    });

    it('has its signed POST with a JSON body accepted', async () => {
      const answer = await client.send('POST', '/api/v1/edge/register', { edge_id: 'edge-client-1', hostname: 'edge-client-1.example' });
      expect(answer.status).to.equal(200);
      expect(answer.json<{ data: { edge_id: string } }>().data.edge_id).to.equal('edge-client-1');
      expect(answer.requestId).to.be.a('string');
    });

    it('signs each request with a fresh nonce, so the same request sent twice is accepted twice', async () => {
      for (let i = 0; i < 2; i++) expect((await client.send('GET', '/api/v1/edge/config?if_version=0')).status).to.equal(200);
    });

    it('signs the query as sent', async () => {
      const answer = await client.send('GET', '/api/v1/edge/config?if_version=abc');
      expect(answer.status).to.equal(422);
    });

    it('gets a 401 answer (not an error) when the token is unknown', async () => {
      const stranger = createCoreClient({ coreUrl: core.url, edgeId: 'edge-client-1', token: 'cdnedge_unknown-token' });
      const answer = await stranger.send('POST', '/api/v1/edge/heartbeat', { edge_id: 'edge-client-1' });
      stranger.close();
      expect(answer.status).to.equal(401);
      expect(answer.json<{ detail: string }>().detail).to.equal('unknown edge token');
    });
  });

  describe('against a plain server', () => {
    let server: Server;
    let url: string;
    let handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
    let seen: Record<string, string | string[] | undefined>[];
    before(async () => {
      server = createServer((req, res) => {
        seen.push(req.headers);
        handler(req, res);
      });
      url = await listen(server);
    });
    beforeEach(() => (seen = []));
    after(() => close(server));

    it('asks for gzip and decompresses the answer', async () => {
      handler = (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"data":"zipped"}'));
      const client = createCoreClient({ coreUrl: url, edgeId: 'edge-1', token: EDGE_TOKEN });
      const answer = await client.send('GET', '/x');
      client.close();
      expect(seen[0]['accept-encoding']).to.equal('gzip');
      expect(answer.json()).to.deep.equal({ data: 'zipped' });
    });

    it('keeps a path prefix of the core URL in the request and the signature', async () => {
      let path = '';
      handler = (req, res) => {
        path = req.url!;
        res.end('{}');
      };
      const client = createCoreClient({ coreUrl: `${url}/cdn/`, edgeId: 'edge-1', token: EDGE_TOKEN });
      await client.send('GET', '/api/v1/edge/config');
      client.close();
      expect(path).to.equal('/cdn/api/v1/edge/config');
    });

    it('fails with a one-line timeout error when the core does not answer in time', async () => {
      handler = () => undefined;
      const client = createCoreClient({ coreUrl: url, edgeId: 'edge-1', token: EDGE_TOKEN, timeoutMs: 100 });
      const error = await failure(client.send('GET', '/api/v1/edge/config?if_version=1'));
      client.close();
      expect(error.kind).to.equal('timeout');
      expect(error.message).to.equal('core request GET /api/v1/edge/config timed out after 100 ms');
    });

    it('stops reading an answer larger than allowed, on the wire and once decompressed', async () => {
      const client = createCoreClient({ coreUrl: url, edgeId: 'edge-1', token: EDGE_TOKEN });
      handler = (_req, res) => res.end(Buffer.alloc(5000, 'a'));
      expect((await failure(client.send('GET', '/x', undefined, { maxAnswerBytes: 4096 }))).kind).to.equal('too_large');
      handler = (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(`{"data":{"version":7,"checksum":"${'a'.repeat(64)}","snapshot":${'1'.repeat(100000)}}}`));
      const error = await failure(client.send('GET', '/x', undefined, { maxAnswerBytes: 4096 }));
      client.close();
      expect(error.kind).to.equal('too_large');
      expect(error.head!.toString()).to.match(/^\{"data":\{"version":7,/);
    });

    it('fails with bad_answer on a body that is not what its content-encoding says', async () => {
      handler = (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip');
      const client = createCoreClient({ coreUrl: url, edgeId: 'edge-1', token: EDGE_TOKEN });
      const error = await failure(client.send('GET', '/x'));
      client.close();
      expect(error.kind).to.equal('bad_answer');
    });
  });

  it('fails with a one-line unreachable error on a closed port', async () => {
    const server = createServer();
    const url = await listen(server);
    await close(server);
    const client = createCoreClient({ coreUrl: url, edgeId: 'edge-1', token: EDGE_TOKEN });
    const error = await failure(client.send('POST', '/api/v1/edge/heartbeat', { edge_id: 'edge-1' }));
    client.close();
    expect(error.kind).to.equal('unreachable');
    expect(error.message).to.match(/^core unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });

  it('refuses a bad edge id, token or core URL when created', () => {
    expect(() => createCoreClient({ coreUrl: 'http://127.0.0.1:1', edgeId: 'edge 1', token: EDGE_TOKEN })).to.throw(/edge id "edge 1" must be 1-128/);
    expect(() => createCoreClient({ coreUrl: 'http://127.0.0.1:1', edgeId: 'edge-1', token: 'has\nnewline' })).to.throw(/edge token/);
    expect(() => createCoreClient({ coreUrl: 'ftp://core', edgeId: 'edge-1', token: EDGE_TOKEN })).to.throw(/http or https/);
    expect(() => createCoreClient({ coreUrl: 'not a url', edgeId: 'edge-1', token: EDGE_TOKEN })).to.throw(/is not a URL/);
  });
});

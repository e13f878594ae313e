import { createServer, request as httpRequest, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import pino from 'pino';
import type { AppDeps } from '../../src/http/app.js';
import { withDirectLane } from '../../src/http/direct-lane.js';
import { ValidationError } from '../../src/http/errors.js';
import type { Route } from '../../src/http/route.js';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore } from '../support/core.js';

const EDGE_TOKEN = 'cdnedge_direct-lane-token-0123456789';

// A public direct route that echoes its query, or fails the way a handler can.
const ECHO: Route = {
  method: 'get',
  path: '/echo',
  auth: 'public',
  direct: true,
  handler: async ({ query, requestId }) => {
    if (query.fail !== undefined) throw new ValidationError('fail', 'asked to fail');
    return { data: { query, requestId } };
  },
};

describe('the direct lane in front of express', () => {
  let server: Server;
  let base: string;
  const toExpress: string[] = [];

  before(async () => {
    const app: RequestListener = (req, res) => {
      toExpress.push(`${req.method} ${req.url}`);
      res.end('express');
    };
    server = createServer(withDirectLane(app, { logger: pino({ level: 'silent' }) } as AppDeps, [ECHO]));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    toExpress.length = 0;
  });

  // node:http, because fetch cannot send a GET with a body.
  const send = (method: string, path: string, body?: string) =>
    new Promise<string>((resolve, reject) => {
      const headers = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
      const request = httpRequest(`${base}${path}`, { method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks).toString()));
      });
      request.on('error', reject);
      request.end(body);
    });

  it('serves a direct route itself, with the query parsed as express does and the request id echoed', async () => {
    const response = await fetch(`${base}/echo?a=1&a=2&b=x`, { headers: { 'x-request-id': 'lane-test-1' } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(response.headers.get('x-request-id')).to.equal('lane-test-1');
    expect(await response.json()).to.deep.equal({ data: { query: { a: ['1', '2'], b: 'x' }, requestId: 'lane-test-1' } });
    expect(toExpress).to.deep.equal([]);
  });

  it('answers a handler error through the one error funnel', async () => {
    const response = await fetch(`${base}/echo?fail`);
    expect(response.status).to.equal(422);
    expect(await response.json()).to.deep.equal({ error: 'validation failed', field: 'fail', detail: 'asked to fail' });
  });

  it('leaves other paths, methods and requests with a body to express', async () => {
    for (const [method, path, body] of [['GET', '/echo/more'], ['POST', '/echo', '{}'], ['HEAD', '/echo'], ['GET', '/echo', '{}']]) {
      expect(await send(method, path, body), `${method} ${path}`).to.equal(method === 'HEAD' ? '' : 'express');
    }
    expect(toExpress).to.deep.equal(['GET /echo/more', 'POST /echo', 'HEAD /echo', 'GET /echo']);
  });

  it('refuses at start a direct route that needs express', () => {
    const app: RequestListener = () => {};
    const deps = {} as AppDeps;
    expect(() => withDirectLane(app, deps, [{ ...ECHO, path: '/echo/:id' }])).to.throw(/cannot be served by the direct lane/);
    expect(() => withDirectLane(app, deps, [{ ...ECHO, auth: 'api' }])).to.throw(/GET \/echo cannot/);
    expect(() => withDirectLane(app, deps, [{ ...ECHO, method: 'post' }])).to.throw(/POST \/echo cannot/);
  });
});

describe('the signed config pull through the direct lane', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
  });
  after(async () => {
    await core.stop();
  });

  const sign = (path: string, body = '') => signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'GET', pathWithQuery: path, body });

  it('answers 401 with the failed check, and 422 for a bad if_version', async () => {
    const forged = { ...sign('/api/v1/edge/config'), 'x-cdn-signature': '0'.repeat(64) };
    const refused = await fetch(`${core.url}/api/v1/edge/config`, { headers: forged });
    expect(refused.status).to.equal(401);
    expect(await refused.json()).to.deep.equal({ error: 'edge authentication failed', detail: 'bad signature' });
    const bad = await fetch(`${core.url}/api/v1/edge/config?if_version=abc`, { headers: sign('/api/v1/edge/config?if_version=abc') });
    expect(bad.status).to.equal(422);
    expect((await bad.json()).field).to.equal('if_version');
  });
});

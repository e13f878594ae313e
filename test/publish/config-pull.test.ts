import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore } from '../support/core.js';

const EDGE_TOKEN = 'cdnedge_pull-encoding-token-0123456789';
type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

// The config pull is served by the direct lane, and by express for a request that
// carries a body (here an empty chunked one); both must negotiate the same way.
describe('the config pull: encoding negotiation, Vary and the checksum', () => {
  let core: TestCore;
  let version: number;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    const domain = await core.createDomain('pull.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'origin.pull.example' }, 201);
    version = (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
  });
  after(async () => {
    await core.stop();
  });

  // node:http rather than fetch: fetch adds its own Accept-Encoding and decompresses.
  const pull = (lane: 'direct lane' | 'express', acceptEncoding: string | undefined, query = '') =>
    new Promise<Answer>((resolve, reject) => {
      const path = `/api/v1/edge/config${query}`;
      const headers: Record<string, string> = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'GET', pathWithQuery: path });
      if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
      if (lane === 'express') headers['transfer-encoding'] = 'chunked';
      const sent = request(`${core.url}${path}`, { method: 'GET', headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      });
      sent.on('error', reject);
      sent.end();
    });

  const CASES: [string | undefined, 'gzip' | undefined][] = [
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    [' deflate , gzip ; q=0.5', 'gzip'],
    ['*', 'gzip'],
    ['gzip;q=0', undefined],
    ['gzip;q=0, *', undefined],
    ['identity, gzip;q=0.5', undefined],
    [undefined, undefined],
  ];
  for (const lane of ['direct lane', 'express'] as const) {
    for (const [acceptEncoding, encoding] of CASES) {
      it(`through the ${lane}, answers ${encoding ?? 'uncompressed'} with Vary to ${acceptEncoding === undefined ? 'no Accept-Encoding' : JSON.stringify(acceptEncoding)}`, async () => {
        const answer = await pull(lane, acceptEncoding);
        expect(answer.status).to.equal(200);
        expect(answer.headers['content-encoding']).to.equal(encoding);
        expect(answer.headers.vary).to.equal('Accept-Encoding');
        const json = JSON.parse((encoding ? gunzipSync(answer.body) : answer.body).toString());
        expect(json.data).to.include({ version });
        expect(Number(answer.headers['content-length'])).to.equal(answer.body.length);
      });
    }

    it(`through the ${lane}, answers a checksum that is the SHA-256 of the snapshot value's bytes in the body`, async () => {
      for (const acceptEncoding of ['gzip', undefined]) {
        const answer = await pull(lane, acceptEncoding);
        const body = acceptEncoding ? gunzipSync(answer.body) : answer.body;
        // docs/edge-protocol.md: after the first `"snapshot":`, up to the closing `}}` of the body.
        const start = body.indexOf('"snapshot":') + '"snapshot":'.length;
        const snapshotBytes = body.subarray(start, body.length - 2);
        expect(body.subarray(body.length - 2).toString()).to.equal('}}');
        expect(createHash('sha256').update(snapshotBytes).digest('hex')).to.equal(JSON.parse(body.toString()).data.checksum);
      }
    });

    it(`through the ${lane}, sends Vary on the not-modified answer too`, async () => {
      const answer = await pull(lane, 'gzip', `?if_version=${version}`);
      expect(answer.headers.vary).to.equal('Accept-Encoding');
      expect(answer.headers['content-encoding']).to.equal(undefined);
      expect(JSON.parse(answer.body.toString()).data).to.include({ version, not_modified: true });
    });
  }
});

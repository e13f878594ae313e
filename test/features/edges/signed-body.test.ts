import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';

const TOKEN = 'cdnedge_signed-body-token-0123456789';
const REGISTER = '/api/v1/edge/register';

// The signature covers the body bytes as they travel: compressed when the edge
// compresses, whatever the content type (docs/edge-protocol.md).
describe('the body hash of a signed edge request', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_API_MAX_BODY_BYTES: '4096' });
  });
  after(async () => {
    await core.stop();
  });

  const json = Buffer.from(JSON.stringify({ edge_id: 'edge-1', region: 'eu-central' }));
  const send = async (body: Buffer, headers: Record<string, string>, signedBody: Buffer | string = body, path = REGISTER) => {
    const signed = signedHeaders({ token: TOKEN, edgeId: 'edge-1', method: 'POST', pathWithQuery: path, body: signedBody });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...signed, ...headers }, body: new Uint8Array(body) });
    return { status: response.status, body: (await response.json()) as Json };
  };

  const CODINGS: [string, (input: Buffer) => Buffer][] = [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ];
  for (const [coding, compress] of CODINGS) {
    it(`accepts a ${coding} body signed over its compressed bytes, and refuses it signed over the JSON`, async () => {
      const wire = compress(json);
      const accepted = await send(wire, { 'content-type': 'application/json', 'content-encoding': coding });
      expect(accepted.status).to.equal(200);
      expect(accepted.body.data).to.include({ edge_id: 'edge-1', region: 'eu-central' });
      const refused = await send(wire, { 'content-type': 'application/json', 'content-encoding': coding }, json);
      expect(refused.status).to.equal(401);
      expect(refused.body.detail).to.equal('bad signature');
    });
  }

  it('reads the wire bytes whichever spelling of the path express matched (trailing slash, upper case)', async () => {
    for (const path of [`${REGISTER}/`, REGISTER.toUpperCase().replace('/API/V1', '/api/v1')]) {
      const accepted = await send(gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' }, undefined, path);
      expect(accepted.status, path).to.equal(200);
    }
  });

  it('signs a body that is not JSON over its bytes too: authenticated, then refused 422 for not being JSON', async () => {
    const text = Buffer.from('edge_id=edge-1');
    const overBytes = await send(text, { 'content-type': 'text/plain' });
    expect(overBytes.status).to.equal(422);
    expect(overBytes.body.detail).to.match(/JSON body is required/);
    const overNothing = await send(text, { 'content-type': 'text/plain' }, '');
    expect(overNothing.status).to.equal(401);
    expect(overNothing.body.detail).to.equal('bad signature');
  });

  const REFUSALS: [string, Buffer, Record<string, string>, number, RegExp][] = [
    ['a body that is not the gzip it claims', json, { 'content-encoding': 'gzip' }, 400, /unreadable request body/],
    ['an unknown Content-Encoding', json, { 'content-encoding': 'compress' }, 415, /unsupported body encoding/],
    ['a body larger than CDN_API_MAX_BODY_BYTES on the wire', Buffer.alloc(5000, 32), {}, 413, /request body too large/],
    ['a gzip body that inflates beyond CDN_API_MAX_BODY_BYTES', gzipSync(Buffer.alloc(100000, 32)), { 'content-encoding': 'gzip' }, 413, /request body too large/],
    ['malformed JSON', Buffer.from('{"edge_id":'), {}, 400, /malformed JSON body/],
    ['a charset other than utf-8', json, { 'content-type': 'application/json; charset=latin1' }, 415, /unsupported body encoding/],
  ];
  for (const [what, body, headers, status, error] of REFUSALS) {
    it(`answers ${status} to ${what}`, async () => {
      const answer = await send(body, { 'content-type': 'application/json', ...headers });
      expect(answer.status).to.equal(status);
      expect(answer.body.error).to.match(error);
    });
  }
});

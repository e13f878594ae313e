import { readFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { bodyHash, canonicalString, signature, signaturesMatch, signedHeaders, signingKey } from '../../src/shared/signing.js';

const PROTOCOL_DOC = new URL('../../docs/edge-protocol.md', import.meta.url);

// The `name = value` lines of the worked example's code block in docs/edge-protocol.md.
function workedExample(): Record<string, string> {
  const section = readFileSync(PROTOCOL_DOC, 'utf8').split('## Worked example')[1];
  const block = /```\n([\s\S]*?)```/.exec(section)![1];
  const values: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const match = /^(\w[\w ]*?)\s+= (.*)$/.exec(line);
    if (match) values[match[1]] = match[2];
  }
  return values;
}

describe('edge request signing', () => {
  it('produces every value of the worked example of docs/edge-protocol.md', () => {
    const example = workedExample();
    const [method, path] = example.request.split(' ');
    const timestamp = Number(example.timestamp);
    const key = signingKey(example.token);
    expect(key).to.equal(example['signing key']);
    expect(bodyHash(example.body)).to.equal(example['body hash']);
    const canonical = canonicalString({ method, pathWithQuery: path, timestamp, nonce: example.nonce, edgeId: example['edge id'], body: example.body });
    expect(JSON.stringify(canonical)).to.equal(example.canonical);
    expect(signature(key, canonical)).to.equal(example.signature);
    const headers = signedHeaders({ token: example.token, edgeId: example['edge id'], method, pathWithQuery: path, body: example.body, now: timestamp, nonce: example.nonce });
    expect(headers['x-cdn-signature']).to.equal(example.signature);
    // The doc also shows the signature a client gets by keying the HMAC with the 32 raw digest bytes, which is wrong.
    expect(createHmac('sha256', Buffer.from(key, 'hex')).update(canonical).digest('hex')).to.equal(example['not the signature']);
  });

  it('signs the edge id, so the same request for another edge has another signature', () => {
    const signed = (edgeId: string) => signedHeaders({ token: 't', edgeId, method: 'GET', pathWithQuery: '/api/v1/edge/config', now: 1, nonce: 'n'.repeat(16) })['x-cdn-signature'];
    expect(signed('edge-a')).to.not.equal(signed('edge-b'));
  });

  it('signs the query string and the empty body too', () => {
    const a = signedHeaders({ token: 't', edgeId: 'e', method: 'GET', pathWithQuery: '/api/v1/edge/config?if_version=3', now: 1, nonce: 'n'.repeat(16) });
    const b = signedHeaders({ token: 't', edgeId: 'e', method: 'GET', pathWithQuery: '/api/v1/edge/config?if_version=4', now: 1, nonce: 'n'.repeat(16) });
    expect(a['x-cdn-signature']).to.not.equal(b['x-cdn-signature']);
    expect(bodyHash('')).to.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('compares signatures in constant time and refuses malformed ones', () => {
    const good = signature('k', 'x');
    expect(signaturesMatch(good, good)).to.equal(true);
    expect(signaturesMatch(good, good.slice(0, -2))).to.equal(false);
    expect(signaturesMatch(good, 'zz')).to.equal(false);
  });
});

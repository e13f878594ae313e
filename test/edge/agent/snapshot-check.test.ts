import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { announcedSnapshot, checkConfigAnswer } from '../../../src/edge/agent/snapshot-check.js';

const MINIMAL = '{"schema_version":2,"edge":{"challenge_difficulty":3,"security":{}},"domains":[],"purges":[]}';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A config answer built the way the core builds it (docs/edge-protocol.md). */
function answer(snapshot: string, checksum = sha256(snapshot), version = 4): Buffer {
  return Buffer.from(`{"data":{"version":${version},"checksum":"${checksum}","created_at":1795350000,"snapshot":${snapshot}}}`);
}

function reason(body: Buffer, maxBytes = 1024 * 1024): string {
  const check = checkConfigAnswer(body, maxBytes);
  expect(check.kind).to.equal('invalid');
  return (check as { reason: string }).reason;
}

describe('edge agent: config answer checks', () => {
  it('accepts a well-formed answer and keeps the snapshot bytes its checksum covers', () => {
    const check = checkConfigAnswer(answer(MINIMAL), 1024);
    expect(check.kind).to.equal('snapshot');
    if (check.kind !== 'snapshot') return;
    expect(check.pulled).to.include({ version: 4, checksum: sha256(MINIMAL), createdAt: 1795350000 });
    expect(Buffer.concat(check.pulled.chunks).toString()).to.equal(MINIMAL);
    expect(check.pulled.snapshot.schema_version).to.equal(2);
  });

  it('hashes the bytes as received, not a re-serialization (whitespace and escapes count)', () => {
    const spaced = MINIMAL.replace('"domains":[]', '"domains": [ ]').replace('"security":{}', '"security":{"x":"\\u0041"}');
    expect(checkConfigAnswer(answer(spaced), 1024).kind).to.equal('snapshot');
    expect(reason(answer(spaced, sha256(MINIMAL)))).to.equal('checksum mismatch');
  });

  it('reads the not-modified and nothing-published answers', () => {
    expect(checkConfigAnswer(Buffer.from(`{"data":{"version":4,"checksum":"${'a'.repeat(64)}","not_modified":true}}`), 1024)).to.deep.equal({ kind: 'not_modified', version: 4, checksum: 'a'.repeat(64) });
    expect(checkConfigAnswer(Buffer.from('{"data":{"version":null,"not_modified":false,"detail":"no snapshot has been published yet"}}'), 1024)).to.deep.equal({ kind: 'none' });
  });

  it('refuses an unsupported schema_version before the schema', () => {
    expect(reason(answer(MINIMAL.replace('"schema_version":2', '"schema_version":3')))).to.equal('unsupported schema_version 3 (this edge reads 2)');
  });

  it('refuses a snapshot that breaks the schema, naming where', () => {
    expect(reason(answer(MINIMAL.replace('"domains":[]', '"domains":[{"id":5}]')))).to.equal("schema: /domains/0 must have required property 'domain'");
  });

  it('refuses a snapshot over the size limit, and an answer far over it without reading it', () => {
    expect(reason(answer(MINIMAL), MINIMAL.length - 1)).to.equal(`snapshot of ${MINIMAL.length} bytes exceeds CDN_EDGE_CONFIG_MAX_BYTES (${MINIMAL.length - 1})`);
    expect(reason(Buffer.alloc(3000, ' '), 1024)).to.equal('config answer of 3000 bytes exceeds CDN_EDGE_CONFIG_MAX_BYTES (1024)');
  });

  const MALFORMED: [string, Buffer][] = [
    ['truncated', answer(MINIMAL).subarray(0, 120)],
    ['not JSON', Buffer.from('<html>')],
    ['without data', Buffer.from('{"error":"x"}')],
    ['with a bad checksum field', answer(MINIMAL, 'ABC')],
    ['with a negative version', answer(MINIMAL, undefined, -1)],
    ['with a snapshot that is not an object', answer('[1,2]')],
    ['with trailing bytes', Buffer.concat([answer(MINIMAL), Buffer.from(' ')])],
  ];
  for (const [what, body] of MALFORMED) {
    it(`refuses an answer ${what} with a one-line reason, without throwing`, () => {
      expect(reason(body)).to.match(/^[^\n]{5,300}$/);
    });
  }

  it('reads the announced version and checksum from the first bytes of an answer cut off for its size', () => {
    expect(announcedSnapshot(answer(MINIMAL).subarray(0, 140))).to.deep.equal({ version: 4, checksum: sha256(MINIMAL) });
    expect(announcedSnapshot(Buffer.from('{"data":{"version":4'))).to.equal(undefined);
  });
});

import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { applyDelta, DeltaError, snapshotChunks, snapshotParts, writeDelta } from '../../src/shared/snapshot-delta.js';

const domain = (n: number, extra: Record<string, unknown> = {}) => ({ id: `d${n}`, domain: `d${n}.example`, hostnames: [`d${n}.example`], origins: [{ host: `o.d${n}.example` }], ...extra });
const snapshot = (domains: unknown[], purges: unknown[] = [], edge: Record<string, unknown> = { challenge_difficulty: 2 }) => Buffer.from(JSON.stringify({ schema_version: 2, edge, domains, purges }));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const delta = (from: Buffer, to: Buffer) => writeDelta(snapshotParts(from), snapshotParts(to), 1, sha256(from))!;
const applied = (from: Buffer, change: Buffer) => Buffer.concat(snapshotChunks(applyDelta(snapshotParts(from, false), change).parts));

describe('snapshot delta format', () => {
  const ten = Array.from({ length: 10 }, (_, n) => domain(n));

  it('carries one changed domain between two runs of copied ones, and no unchanged section', () => {
    const from = snapshot(ten);
    const to = snapshot(ten.map((entry, n) => (n === 4 ? domain(4, { hostnames: ['d4.example', 'www.d4.example'] }) : entry)));
    const written = delta(from, to);
    const parsed = JSON.parse(written.toString());
    expect(parsed).to.deep.include({ since: 1, since_checksum: sha256(from), sections: {} });
    expect(parsed.domains).to.deep.equal([4, domain(4, { hostnames: ['d4.example', 'www.d4.example'] }), -1, 5]);
    expect(applied(from, written).equals(to)).to.equal(true);
  });

  it('carries added and removed domains and a changed purge list, byte for byte', () => {
    const from = snapshot(ten, [{ id: 'p1' }]);
    const to = snapshot([domain(0), ...ten.slice(2), domain(11)], [{ id: 'p1' }, { id: 'p2' }]);
    const parsed = JSON.parse(delta(from, to).toString());
    expect(parsed.sections).to.deep.equal({ purges: [{ id: 'p1' }, { id: 'p2' }] });
    expect(parsed.domains).to.deep.equal([1, -1, 8, domain(11)]);
    expect(applied(from, delta(from, to)).equals(to)).to.equal(true);
  });

  it('copies strings with quotes, backslashes and brackets exactly', () => {
    const tricky = domain(3, { note: 'a "quoted" \\ value ] } [ {', tail: '\\\\' });
    const from = snapshot([domain(1), tricky, domain(5)]);
    const to = snapshot([domain(1), tricky, domain(5, { note: '}\\"' })], [], { challenge_difficulty: 3, text: '"{' });
    expect(sha256(applied(from, delta(from, to)))).to.equal(sha256(to));
  });

  it('writes no delta between snapshots with different top-level members', () => {
    const from = snapshot(ten);
    const to = Buffer.from(JSON.stringify({ schema_version: 3, edge: {}, domains: ten, purges: [], extra: [] }));
    expect(writeDelta(snapshotParts(from), snapshotParts(to), 1, sha256(from))).to.equal(undefined);
  });

  it('refuses a delta that copies more domains than the snapshot it starts from has', () => {
    const from = snapshot(ten);
    expect(() => applied(from, Buffer.from('{"since":1,"since_checksum":"x","sections":{},"domains":[11]}'))).to.throw(DeltaError);
    expect(() => applied(from, Buffer.from('{"since":1,"since_checksum":"x","sections":{"other":1},"domains":[10]}'))).to.throw(DeltaError);
  });
});

import { createHash } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrator.js';
import { inTransaction } from '../../src/db/transaction.js';
import { layoutBytes, layoutOf, layoutSize, type SnapshotLayout } from '../../src/publish/snapshot-layout.js';
import { deleteUnusedPieces, readDeltaBase, readSnapshotBytes, readStoredLayout, storeVersion } from '../../src/publish/snapshot-store.js';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// A canonical snapshot body with these domains (each a small object), as the builder writes one.
function body(domains: string[], purges: unknown[] = []): Buffer {
  return Buffer.from(JSON.stringify({ schema_version: 2, edge: { challenge_difficulty: 2 }, domains: domains.map((domain) => ({ id: `id-${domain}`, domain, hostnames: [`www.${domain}`] })), purges }));
}

describe('snapshot versions stored by pieces', () => {
  let url: string;
  let database: Database;
  const count = async (table: string) => Number((await database.pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  const store = (version: number, layout: SnapshotLayout, previous: number | null) =>
    inTransaction(database.pool, (client) => storeVersion(client, { version, checksum: sha256(layoutBytes(layout)), size: layoutSize(layout), layout, source: 'publish', domainCount: layout.pieces.length, publishedSeq: BigInt(version) }, previous));

  beforeEach(async () => {
    url = await createTestDatabase();
    database = openDatabase(url, pino({ level: 'silent' }), 2);
    await migrate(database.pool);
  });
  afterEach(async () => {
    await database.close();
    await dropTestDatabase(url);
  });

  it('stores each piece once: a version that changes one domain adds one piece, and reads back byte for byte', async () => {
    const first = layoutOf(body(['a.example', 'b.example', 'c.example']));
    await store(1, first, null);
    expect(await count('config_snapshot_pieces')).to.equal(3);
    const second = layoutOf(body(['a.example', 'b2.example', 'c.example'], [{ id: 'p1' }]));
    await store(2, second, 1);
    expect(await count('config_snapshot_pieces')).to.equal(4);
    expect((await readSnapshotBytes(database.prisma, 2))?.equals(layoutBytes(second))).to.equal(true);
    expect((await readSnapshotBytes(database.prisma, 1))?.equals(layoutBytes(first))).to.equal(true);
    const stored = (await readStoredLayout(database.prisma, 2))!;
    expect(stored.checksum).to.equal(sha256(layoutBytes(second)));
    expect(stored.layout.digests.map((digest) => digest.toString('hex'))).to.deep.equal(second.digests.map((digest) => digest.toString('hex')));
  });

  it('stores and reads back a version with no domains', async () => {
    const empty = layoutOf(body([]));
    expect(layoutBytes(empty).toString()).to.include('"domains":[]');
    await store(1, empty, null);
    expect((await readSnapshotBytes(database.prisma, 1))?.equals(layoutBytes(empty))).to.equal(true);
    expect((await readDeltaBase(database.prisma, 1))?.base.digests).to.deep.equal([]);
  });

  it('deletes only the pieces no stored version names once versions are pruned', async () => {
    await store(1, layoutOf(body(['a.example', 'old.example'])), null);
    await store(2, layoutOf(body(['a.example', 'new.example'])), 1);
    expect(await deleteUnusedPieces(database.pool)).to.equal(0);
    await database.pool.query('DELETE FROM config_snapshots WHERE version = 1');
    expect(await deleteUnusedPieces(database.pool)).to.equal(1);
    expect(await count('config_snapshot_pieces')).to.equal(2);
    expect((await readSnapshotBytes(database.prisma, 2))?.toString()).to.include('new.example');
  });

  it('refuses a version whose pieces are not all there, and answers undefined for one not stored', async () => {
    await store(1, layoutOf(body(['a.example', 'b.example'])), null);
    await database.pool.query('DELETE FROM config_snapshot_pieces WHERE bytes = (SELECT bytes FROM config_snapshot_pieces LIMIT 1)');
    let error: Error | undefined;
    await readStoredLayout(database.prisma, 1).catch((thrown: Error) => (error = thrown));
    expect(error?.message).to.equal('config snapshot 1: its stored pieces do not give back its checksum');
    expect(await readStoredLayout(database.prisma, 9)).to.equal(undefined);
    expect(await readDeltaBase(database.prisma, 9)).to.equal(undefined);
  });

  it('reads a version stored whole, before pieces, as it was, and stores the next one by all its pieces', async () => {
    const whole = body(['a.example', 'b.example']);
    await database.pool.query('INSERT INTO config_snapshots (version, checksum, size_bytes, payload) VALUES (1, $1, $2, $3)', [sha256(whole), whole.length, whole]);
    expect((await readSnapshotBytes(database.prisma, 1))?.equals(whole)).to.equal(true);
    const base = (await readDeltaBase(database.prisma, 1))!;
    expect(base.checksum).to.equal(sha256(whole));
    expect(base.base.digests).to.deep.equal(layoutOf(whole).digests.map((digest) => digest.toString('base64')));
    await store(2, layoutOf(body(['a.example', 'b.example', 'c.example'])), 1);
    expect(await count('config_snapshot_pieces')).to.equal(3);
    expect((await readSnapshotBytes(database.prisma, 2))?.toString()).to.include('c.example');
  });
});

import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrator.js';
import { readSnapshotPayload } from '../../src/publish/snapshot-payload.js';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';

describe('reading a stored snapshot payload in pieces', () => {
  let url: string;
  let database: Database;
  const store = (version: number, payload: Buffer) => database.pool.query('INSERT INTO config_snapshots (version, checksum, size_bytes, payload) VALUES ($1, $2, $3, $4)', [version, 'c'.repeat(64), payload.length, payload]);

  before(async () => {
    url = await createTestDatabase();
    database = openDatabase(url, pino({ level: 'silent' }), 2);
    await migrate(database.pool);
  });
  after(async () => {
    await database.close();
    await dropTestDatabase(url);
  });

  it('gives back every byte of a payload of several pieces, any byte value included', async () => {
    const payload = randomBytes(3 * 1024 * 1024 + 17);
    await store(1, payload);
    expect((await readSnapshotPayload(database.prisma, 1))?.equals(payload)).to.equal(true);
  });

  it('gives back a payload of exactly one piece, and an empty one', async () => {
    const piece = Buffer.alloc(1024 * 1024, 0x7b);
    await store(2, piece);
    await store(3, Buffer.alloc(0));
    expect((await readSnapshotPayload(database.prisma, 2))?.equals(piece)).to.equal(true);
    expect(await readSnapshotPayload(database.prisma, 3)).to.deep.equal(Buffer.alloc(0));
  });

  it('answers undefined for a version that is not stored', async () => {
    expect(await readSnapshotPayload(database.prisma, 99)).to.equal(undefined);
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { PurgeCoordinator } from '../../../src/edge/primary/purge-coordinator.js';
import type { SnapshotPurge } from '../../../src/shared/snapshot.js';

const purge = (id: string): SnapshotPurge => ({ id, domain_id: 'd1', scope: 'everything', value: null, created_at: 1 });

describe('edge purge coordinator', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-purges-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function started(): Promise<PurgeCoordinator> {
    const coordinator = new PurgeCoordinator(dir);
    await coordinator.load();
    return coordinator;
  }

  it('reports after a restart the results the core never confirmed, and not again once it did', async () => {
    const first = await started();
    const live = [purge('p1'), purge('p2')];
    first.expect(3, ['p1'], [{ id: 'p2', error: 'disk cache purge failed: EIO' }]);
    expect(await first.due(3, live)).to.deep.include({ acks: ['p1'] });

    const restarted = await started();
    expect(restarted.fresh(live)).to.deep.equal([]);
    expect(restarted.unreported()).to.deep.equal({ acks: ['p1'], failures: [{ id: 'p2', error: 'disk cache purge failed: EIO' }] });

    await restarted.reported(['p1'], ['p2']);
    expect((await started()).unreported()).to.deep.equal({ acks: [], failures: [] });
  });

  it('forgets unconfirmed results of purges the snapshot no longer carries', async () => {
    const coordinator = await started();
    coordinator.expect(1, ['old'], []);
    await coordinator.due(1, [purge('old')]);
    coordinator.expect(2, ['new'], []);
    await coordinator.due(2, [purge('new')]);
    expect(coordinator.unreported().acks).to.deep.equal(['new']);
  });

  it('reads the file an earlier version wrote (the applied ids alone)', async () => {
    await writeFile(path.join(dir, 'purges-applied.json'), JSON.stringify(['p1']));
    const coordinator = await started();
    expect(coordinator.fresh([purge('p1'), purge('p2')]).map((item) => item.id)).to.deep.equal(['p2']);
    expect(coordinator.unreported()).to.deep.equal({ acks: [], failures: [] });
  });

  it('keeps a consistent file when saves overlap', async () => {
    const coordinator = await started();
    coordinator.expect(1, ['a', 'b'], []);
    await coordinator.due(1, [purge('a'), purge('b')]);
    await Promise.all([coordinator.reported(['a'], []), coordinator.reported(['b'], [])]);
    expect(JSON.parse(await readFile(path.join(dir, 'purges-applied.json'), 'utf8')).unreported.acks).to.deep.equal([]);
  });
});

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SnapshotPurge } from '../../shared/snapshot.js';

type Pending = { version: number; acks: string[]; failures: { id: string; error: string }[] };

/**
 * Carries out the purges of each snapshot once per edge: the primary purges the
 * shared disk tier, the workers their memory tiers when they activate the
 * snapshot; a purge is acknowledged to the core only when every worker has
 * activated a version that carries it. Applied ids are kept on disk, so a
 * restarted edge does not purge objects cached after the purge again.
 */
export class PurgeCoordinator {
  private applied = new Set<string>();
  private pending: Pending[] = [];
  private readonly file: string;
  failed = 0;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'purges-applied.json');
  }

  async load(): Promise<void> {
    const text = await readFile(this.file, 'utf8').catch(() => '[]');
    try {
      this.applied = new Set((JSON.parse(text) as unknown[]).filter((id): id is string => typeof id === 'string'));
    } catch {
      this.applied = new Set();
    }
  }

  /** The purges of a snapshot not yet carried out here. */
  fresh(purges: readonly SnapshotPurge[]): SnapshotPurge[] {
    return purges.filter((purge) => !this.applied.has(purge.id));
  }

  /** Records the outcome of the disk purges of `version`; they are acknowledged once every worker runs it. */
  expect(version: number, acks: string[], failures: { id: string; error: string }[]): void {
    this.failed += failures.length;
    if (acks.length || failures.length) this.pending.push({ version, acks, failures });
  }

  /** The acknowledgements now due, given the lowest version every live worker has activated. */
  async due(lowestActiveVersion: number, current: readonly SnapshotPurge[]): Promise<Pending | undefined> {
    const ready = this.pending.filter((item) => item.version <= lowestActiveVersion);
    if (!ready.length) return undefined;
    this.pending = this.pending.filter((item) => item.version > lowestActiveVersion);
    const acks = ready.flatMap((item) => item.acks);
    const failures = ready.flatMap((item) => item.failures);
    for (const id of [...acks, ...failures.map((failure) => failure.id)]) this.applied.add(id);
    const live = new Set(current.map((purge) => purge.id));
    for (const id of this.applied) if (!live.has(id)) this.applied.delete(id);
    await this.save();
    return { version: lowestActiveVersion, acks, failures };
  }

  get pendingCount(): number {
    return this.pending.reduce((sum, item) => sum + item.acks.length + item.failures.length, 0);
  }

  get appliedCount(): number {
    return this.applied.size;
  }

  private async save(): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify([...this.applied]));
    await rename(temporary, this.file);
  }
}

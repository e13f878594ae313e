import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SnapshotPurge } from '../../shared/snapshot.js';

type Failure = { id: string; error: string };
type Pending = { version: number; acks: string[]; failures: Failure[] };
/** Results the core has not confirmed yet (a heartbeat carrying them was not answered 200). */
export type Unreported = { acks: string[]; failures: Failure[] };
type Saved = { applied: string[]; unreported: Unreported };

function isFailure(value: unknown): value is Failure {
  return typeof value === 'object' && value !== null && typeof (value as Failure).id === 'string' && typeof (value as Failure).error === 'string';
}

// The file holds { applied, unreported }; before unreported results were kept it was the applied ids alone.
function parseSaved(text: string): Saved {
  const empty: Saved = { applied: [], unreported: { acks: [], failures: [] } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return empty;
  }
  const strings = (list: unknown): string[] => (Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : []);
  if (Array.isArray(value)) return { ...empty, applied: strings(value) };
  if (typeof value !== 'object' || value === null) return empty;
  const saved = value as { applied?: unknown; unreported?: { acks?: unknown; failures?: unknown } };
  const failures = Array.isArray(saved.unreported?.failures) ? saved.unreported.failures.filter(isFailure) : [];
  return { applied: strings(saved.applied), unreported: { acks: strings(saved.unreported?.acks), failures } };
}

/**
 * Carries out the purges of each snapshot once per edge: the primary purges the
 * shared disk tier, the workers their memory tiers when they activate the
 * snapshot; a purge is acknowledged to the core only when every worker has
 * activated a version that carries it. Applied ids are kept on disk, so a
 * restarted edge does not purge objects cached after the purge again; so are
 * the results the core has not confirmed, so a restart cannot lose an ack.
 */
export class PurgeCoordinator {
  private applied = new Set<string>();
  private unreportedAcks = new Set<string>();
  private unreportedFailures = new Map<string, string>();
  private pending: Pending[] = [];
  private readonly file: string;
  failed = 0;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'purges-applied.json');
  }

  async load(): Promise<void> {
    const saved = parseSaved(await readFile(this.file, 'utf8').catch(() => '[]'));
    this.applied = new Set(saved.applied);
    this.unreportedAcks = new Set(saved.unreported.acks);
    this.unreportedFailures = new Map(saved.unreported.failures.map((failure) => [failure.id, failure.error]));
  }

  /** Results carried out before but not yet confirmed by the core: report them again. */
  unreported(): Unreported {
    return { acks: [...this.unreportedAcks], failures: [...this.unreportedFailures].map(([id, error]) => ({ id, error })) };
  }

  /** The core confirmed these results (a heartbeat carrying them was answered 200). */
  async reported(acks: readonly string[], failures: readonly string[]): Promise<void> {
    const before = this.unreportedAcks.size + this.unreportedFailures.size;
    for (const id of acks) this.unreportedAcks.delete(id);
    for (const id of failures) this.unreportedFailures.delete(id);
    if (this.unreportedAcks.size + this.unreportedFailures.size !== before) await this.save();
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
    for (const id of acks) this.unreportedAcks.add(id);
    for (const failure of failures) this.unreportedFailures.set(failure.id, failure.error);
    for (const id of [...acks, ...failures.map((failure) => failure.id)]) this.applied.add(id);
    const live = new Set(current.map((purge) => purge.id));
    for (const id of this.applied) if (!live.has(id)) this.applied.delete(id);
    for (const id of this.unreportedAcks) if (!live.has(id)) this.unreportedAcks.delete(id);
    for (const id of this.unreportedFailures.keys()) if (!live.has(id)) this.unreportedFailures.delete(id);
    await this.save();
    return { version: lowestActiveVersion, acks, failures };
  }

  get pendingCount(): number {
    return this.pending.reduce((sum, item) => sum + item.acks.length + item.failures.length, 0);
  }

  get appliedCount(): number {
    return this.applied.size;
  }

  // One write at a time (they share the temporary file); each writes the state as it is then.
  private saving: Promise<void> = Promise.resolve();

  private save(): Promise<void> {
    const next = this.saving.catch(() => undefined).then(() => this.write());
    this.saving = next;
    return next;
  }

  private async write(): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    const saved: Saved = { applied: [...this.applied], unreported: this.unreported() };
    await writeFile(temporary, JSON.stringify(saved));
    await rename(temporary, this.file);
  }
}

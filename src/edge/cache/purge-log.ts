// The purges a worker applied, in order: a fill that began before a purge must not
// store what that purge removed (its object would come back after the purge).
import type { PurgeMatcher } from './purge.js';
import type { PurgeTarget } from './types.js';

const KEPT = 1024;

export class PurgeLog {
  private applied = 0;
  private readonly recent: { position: number; matches: PurgeMatcher }[] = [];

  /** How many purges were applied so far: what a fill starting now remembers. */
  get position(): number {
    return this.applied;
  }

  /** Records purges just applied to the memory tier. */
  record(matchers: readonly PurgeMatcher[]): void {
    for (const matches of matchers) this.recent.push({ position: ++this.applied, matches });
    if (this.recent.length > KEPT) this.recent.splice(0, this.recent.length - KEPT);
  }

  /** True when a purge applied after `position` covers `target`; also when more were applied since than are kept (it cannot tell). */
  coversSince(position: number, target: PurgeTarget): boolean {
    if (position === this.applied) return false;
    if (this.recent.length === 0 || position + 1 < this.recent[0].position) return true;
    for (const entry of this.recent) if (entry.position > position && entry.matches(target)) return true;
    return false;
  }
}

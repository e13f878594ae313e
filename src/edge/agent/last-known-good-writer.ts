// Saves the last-known-good snapshot once it is active, off the activation's path: at 10,000
// domains the file is 17 MiB written and fsynced per version, which twenty edges sharing a disk
// took tens to hundreds of milliseconds to do before they could serve a change (docs/edge-agent.md,
// "Files on disk").
import type { PulledSnapshot } from './snapshot-check.js';
import { saveLastKnownGood } from './snapshot-store.js';

/** One write at a time; a snapshot activated during a write is saved when it ends, only the newest of several. */
export class LastKnownGoodWriter {
  private writing: Promise<void> | undefined;
  private next: PulledSnapshot | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly onSaved: (pulled: PulledSnapshot, error?: Error) => void,
  ) {}

  save(pulled: PulledSnapshot): void {
    this.next = pulled;
    this.writing ??= this.drain();
  }

  /** Resolves once every snapshot handed over so far is on disk (or failed to be). */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    for (let pulled = this.next; pulled; pulled = this.next) {
      this.next = undefined;
      try {
        await saveLastKnownGood(this.dataDir, pulled);
        this.onSaved(pulled);
      } catch (error) {
        this.onSaved(pulled, error as Error);
      }
    }
    this.writing = undefined;
  }
}

// Keeps the edge's active config snapshot: the last-known-good from disk at start,
// then one long-poll of the core kept open (waitSeconds; pull-pacing.ts says when the
// next one goes), or a poll every refreshSeconds without it. A snapshot is activated (announced
// with 'snapshot', then saved as the last-known-good) only after every check of snapshot-check.ts;
// anything else keeps the active one and is counted.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { CoreRequestError, describeAnswer, type CoreClient } from './core-client.js';
import { checkDeltaAnswer } from './delta-check.js';
import { nextPullDelayMs } from './pull-pacing.js';
import { ANSWER_ENVELOPE_BYTES, announcedSnapshot, checkConfigAnswer, type PulledSnapshot } from './snapshot-check.js';
import { LastKnownGoodWriter } from './last-known-good-writer.js';
import { loadLastKnownGood } from './snapshot-store.js';

export type SnapshotSource = 'disk' | 'core';
export type PullOutcome = { outcome: 'updated' | 'unchanged' | 'invalid' | 'unreachable' | 'none'; version: number | null; detail?: string };

/** Times are unix seconds; `null` until it happened. */
export type ConfigSyncStatus = {
  version: number | null;
  checksum: string | null;
  created_at: number | null;
  loaded_at: number | null;
  source: SnapshotSource | null;
  reloads: number;
  reload_failures: number;
  last_reload_error: string | null;
  last_reload_error_at: number | null;
  last_save_error: string | null;
  pull_failures: number;
  last_pull_error: string | null;
  last_pull_at: number | null;
  last_success_at: number | null;
  core_version: number | null;
  behind_since: number | null;
  /** Seconds since the edge last knew it served the core's newest version (0 now; null before any pull worked). */
  stale_seconds: number | null;
};

/** `waitSeconds`: how long the core may hold each request for a newer version (0 or absent: plain polling). */
export type ConfigSyncOptions = { client: CoreClient; dataDir: string; maxBytes: number; refreshSeconds: number; waitSeconds?: number; logger: Logger };

/** A refused version is downloaded again at most this often, in case what failed was transient. */
const REFUSED_RETRY_MS = 60_000;
const CONFIG_PATH = '/api/v1/edge/config';
/** A held request is given up this long after its wait should have ended (a connection that died silently). */
const WAIT_MARGIN_MS = 10_000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The pull's target: `if_version` for a not-modified answer, `since` (the active version) for a delta, `wait` to be held for a newer version (docs/edge-protocol.md). */
function configTarget(ifVersion: number | undefined, since: number | undefined, waitSeconds: number): string {
  const query = [ifVersion === undefined ? undefined : `if_version=${ifVersion}`, since === undefined ? undefined : `since=${since}`, waitSeconds === 0 ? undefined : `wait=${waitSeconds}`].filter(Boolean);
  return query.length ? `${CONFIG_PATH}?${query.join('&')}` : CONFIG_PATH;
}

export interface ConfigSync {
  on(event: 'snapshot', listener: (pulled: PulledSnapshot, source: SnapshotSource) => void): this;
}

/** Pulls, checks, stores and announces config snapshots; never throws once started. */
export class ConfigSync extends EventEmitter {
  private active: PulledSnapshot | undefined;
  private readonly counters = { reloads: 0, reload_failures: 0, pull_failures: 0 };
  private state: Omit<ConfigSyncStatus, 'version' | 'checksum' | 'created_at' | 'reloads' | 'reload_failures' | 'pull_failures' | 'stale_seconds'> = {
    loaded_at: null,
    source: null,
    last_reload_error: null,
    last_reload_error_at: null,
    last_save_error: null,
    last_pull_error: null,
    last_pull_at: null,
    last_success_at: null,
    core_version: null,
    behind_since: null,
  };
  /** The version the core offers that this edge refused, with its checksum (or reason when unknown) and when it was last downloaded. */
  private refused: { version: number | undefined; key: string; at: number } | undefined;
  private readonly refusedKeys = new Set<string>();
  private inFlight: Promise<PullOutcome> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private failuresInRow = 0;
  /** Answers are checked and activated one at a time, whichever request (long-poll or pullNow) brought them. */
  private turn: Promise<unknown> = Promise.resolve();
  private abandon = new AbortController();
  private readonly lastKnownGood: LastKnownGoodWriter;

  constructor(private readonly options: ConfigSyncOptions) {
    super();
    this.lastKnownGood = new LastKnownGoodWriter(options.dataDir, (pulled, error) => this.recordSave(pulled, error));
  }

  /** Activates the last-known-good from disk (if any and valid), then starts polling at once; resolves after the disk step. */
  async start(): Promise<void> {
    this.stopped = false;
    this.abandon = new AbortController();
    const loaded = await loadLastKnownGood(this.options.dataDir, this.options.maxBytes);
    if (loaded.kind === 'loaded') this.activate(loaded.pulled, 'disk');
    else if (loaded.kind === 'corrupt') {
      this.options.logger.warn({ reason: loaded.reason }, 'ignoring the last-known-good snapshot on disk');
      this.counters.reload_failures++;
      this.state.last_reload_error = loaded.reason;
      this.state.last_reload_error_at = nowSeconds();
    }
    if (!this.stopped) this.schedule(0);
  }

  /** Stops polling: a held long-poll is abandoned, a plain pull in flight finishes but schedules nothing. */
  stop(): void {
    this.stopped = true;
    this.abandon.abort();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Resolves once the snapshots activated so far are saved as the last-known-good (or failed to be). */
  lastKnownGoodSaved(): Promise<void> {
    return this.lastKnownGood.settled();
  }

  // Serving the new config matters more than the copy for the next restart: a failed save is reported, nothing more.
  private recordSave(pulled: PulledSnapshot, error?: Error): void {
    this.state.last_save_error = error ? error.message : null;
    if (error) this.options.logger.error({ err: error, version: pulled.version }, 'could not save the last-known-good snapshot');
  }

  /** The active snapshot, if any. */
  current(): PulledSnapshot | undefined {
    return this.active;
  }

  /** Pulls now (joining a pull already in flight) and says what came of it. */
  pullNow(): Promise<PullOutcome> {
    this.inFlight ??= this.pull().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  status(): ConfigSyncStatus {
    const active = this.active;
    return { version: active?.version ?? null, checksum: active?.checksum ?? null, created_at: active?.createdAt ?? null, ...this.counters, ...this.state, stale_seconds: this.staleSeconds() };
  }

  private staleSeconds(): number | null {
    const { behind_since: behindSince, last_success_at: lastSuccess, last_pull_error: pullError } = this.state;
    if (lastSuccess === null) return null;
    const since = behindSince ?? (pullError === null ? undefined : lastSuccess);
    return since === undefined ? 0 : Math.max(0, nowSeconds() - since);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pullScheduled().then((nextDelayMs) => {
        if (!this.stopped && !this.timer) this.schedule(nextDelayMs);
      });
    }, delayMs);
  }

  /** One scheduled request (a long-poll when waitSeconds is set); resolves with the pause before the next. */
  private async pullScheduled(): Promise<number> {
    const waitSeconds = this.options.waitSeconds ?? 0;
    const started = Date.now();
    const before = { active: this.active?.version, core: this.state.core_version };
    const outcome = waitSeconds === 0 ? await this.pullNow() : await this.pull(waitSeconds);
    this.failuresInRow = outcome.outcome === 'unreachable' ? this.failuresInRow + 1 : 0;
    const moved = this.active?.version !== before.active || this.state.core_version !== before.core;
    return nextPullDelayMs({ waitSeconds, refreshSeconds: this.options.refreshSeconds, failures: this.failuresInRow, elapsedMs: Date.now() - started, moved });
  }

  /**
   * The version to ask about: a refused one is asked about (answered not_modified) instead of being
   * downloaded every poll; for a full download, no other (the active version may not be what the core holds under its number).
   */
  private ifVersion(full: boolean): number | undefined {
    const refused = this.refused;
    if (refused?.version !== undefined && Date.now() - refused.at < REFUSED_RETRY_MS) return refused.version;
    return full ? undefined : this.active?.version;
  }

  /**
   * Asks the core once, held up to `waitSeconds` for a newer version, then handles the answer in turn.
   * `full` leaves out `since`: after a delta that did not apply, the whole snapshot is downloaded at once.
   */
  private async pull(waitSeconds = 0, full = false): Promise<PullOutcome> {
    const target = configTarget(this.ifVersion(full), full ? undefined : this.active?.version, waitSeconds);
    const held = waitSeconds === 0 ? {} : { timeoutMs: waitSeconds * 1000 + WAIT_MARGIN_MS, signal: this.abandon.signal };
    let body: Buffer;
    try {
      const answer = await this.options.client.send('GET', target, undefined, { maxAnswerBytes: this.options.maxBytes + ANSWER_ENVELOPE_BYTES, ...held });
      if (answer.status !== 200) return this.pullFailed(`core answered ${describeAnswer(answer)}`);
      body = answer.body;
    } catch (error) {
      if (error instanceof CoreRequestError && error.kind === 'too_large') {
        // Cut off while downloading: its head still says which version to stop asking for.
        const announced = error.head ? announcedSnapshot(error.head) : undefined;
        if (announced) this.announced(announced.version);
        const reason = `config answer of more than ${this.options.maxBytes + ANSWER_ENVELOPE_BYTES} bytes: the snapshot exceeds CDN_EDGE_CONFIG_MAX_BYTES (${this.options.maxBytes})`;
        return this.refuse(reason, announced?.version, announced?.checksum);
      }
      if (this.abandon.signal.aborted && waitSeconds > 0) return { outcome: 'unreachable', version: this.active?.version ?? null, detail: 'stopped' };
      return this.pullFailed(error instanceof Error ? error.message : String(error));
    }
    const handled = await this.inTurn(() => this.handle(body, full));
    // Outside the turn: the full download's answer takes its own turn.
    return handled === 'download full' ? this.pull(0, true) : handled;
  }

  private inTurn<T>(step: () => Promise<T>): Promise<T> {
    const result = this.turn.then(step);
    this.turn = result.catch(() => undefined);
    return result;
  }

  private async handle(body: Buffer, full: boolean): Promise<PullOutcome | 'download full'> {
    this.pullSucceeded();
    const delta = checkDeltaAnswer(body, this.active, this.options.maxBytes);
    if (delta?.kind === 'snapshot') {
      this.announced(delta.pulled.version);
      return this.accept(delta.pulled);
    }
    if (delta && !full) {
      this.options.logger.warn({ version: delta.version, reason: delta.reason, active_version: this.active?.version }, 'config delta not applied; downloading the full snapshot');
      return 'download full';
    }
    if (delta) return this.refuse(delta.reason, delta.version, undefined);
    const check = checkConfigAnswer(body, this.options.maxBytes);
    switch (check.kind) {
      case 'none':
        this.announced(null);
        return { outcome: 'none', version: this.active?.version ?? null, detail: 'no snapshot has been published yet' };
      case 'not_modified':
        this.announced(check.version);
        if (!full && this.holdsOtherContentAs(check.version, check.checksum)) {
          this.options.logger.warn({ version: check.version, checksum: check.checksum, active_checksum: this.active?.checksum }, 'the core holds other content under the version this edge serves (a restored database?); downloading the full snapshot');
          return 'download full';
        }
        if (this.refused?.version === check.version) return { outcome: 'invalid', version: this.active?.version ?? null, detail: this.state.last_reload_error ?? undefined };
        return { outcome: 'unchanged', version: check.version };
      case 'invalid':
        if (check.version !== undefined) this.announced(check.version);
        return this.refuse(check.reason, check.version, check.checksum);
      case 'snapshot':
        this.announced(check.pulled.version);
        return this.accept(check.pulled);
    }
  }

  // Version numbers are the core's database's: after a restore they may name other content than what this edge got under them.
  private holdsOtherContentAs(version: number, checksum: string | undefined): boolean {
    return checksum !== undefined && this.active?.version === version && this.active.checksum !== checksum;
  }

  private accept(pulled: PulledSnapshot): PullOutcome {
    const active = this.active;
    if (active && active.version === pulled.version && active.checksum === pulled.checksum) return { outcome: 'unchanged', version: pulled.version };
    this.refused = undefined;
    this.refusedKeys.clear();
    this.activate(pulled, 'core');
    this.lastKnownGood.save(pulled);
    return { outcome: 'updated', version: pulled.version };
  }

  private activate(pulled: PulledSnapshot, source: SnapshotSource): void {
    this.active = pulled;
    this.counters.reloads++;
    this.state.loaded_at = nowSeconds();
    this.state.source = source;
    this.updateBehind();
    this.options.logger.info({ version: pulled.version, checksum: pulled.checksum, bytes: pulled.size, source }, 'activated config snapshot');
    this.emit('snapshot', pulled, source);
  }

  /** Keeps the active snapshot; counts a refused snapshot once per checksum (or reason), reports it every time. */
  private refuse(reason: string, version: number | undefined, checksum: string | undefined): PullOutcome {
    const key = checksum ?? reason;
    this.refused = { version, key, at: Date.now() };
    this.state.last_reload_error = version === undefined ? reason : `version ${version}: ${reason}`;
    this.state.last_reload_error_at = nowSeconds();
    if (!this.refusedKeys.has(key)) {
      this.refusedKeys.add(key);
      this.counters.reload_failures++;
      this.options.logger.warn({ version, checksum, reason, active_version: this.active?.version }, 'refused a config snapshot; keeping the active one');
    }
    return { outcome: 'invalid', version: this.active?.version ?? null, detail: this.state.last_reload_error };
  }

  private pullFailed(message: string): PullOutcome {
    if (this.state.last_pull_error === null) this.options.logger.warn({ error: message }, 'config pull failed; serving the active snapshot');
    this.counters.pull_failures++;
    this.state.last_pull_error = message;
    this.state.last_pull_at = nowSeconds();
    return { outcome: 'unreachable', version: this.active?.version ?? null, detail: message };
  }

  private pullSucceeded(): void {
    if (this.state.last_pull_error !== null) this.options.logger.info('config pull works again');
    this.state.last_pull_error = null;
    this.state.last_pull_at = this.state.last_success_at = nowSeconds();
  }

  /** Records the version the core offers, and since when the active one differs from it. */
  private announced(version: number | null): void {
    this.state.core_version = version;
    this.updateBehind();
  }

  private updateBehind(): void {
    const version = this.state.core_version;
    const behind = version !== null && version !== this.active?.version;
    if (!behind) this.state.behind_since = null;
    else this.state.behind_since ??= nowSeconds();
  }
}

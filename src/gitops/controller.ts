import { watch, type FSWatcher } from 'chokidar';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { ApiClient } from './api-client.js';
import { gitopsSourceHeaders } from '../http/gitops-source.js';
import { applyPlan, buildPlan, safetyGate } from './engine.js';
import { withLiveFields } from './drift-detail.js';
import { desiredModel, type DomainModel } from './model.js';
import { revisionOf, withoutDrift, type Applied, type Drift } from './ownership.js';
import { loadDesiredState } from './load.js';
import { safetyProblem } from './plan.js';
import { planMarkdown, summaryLine } from './print.js';
import { formatProblem, sortProblems } from './problems.js';
import type { DesiredSource } from './source.js';
import type { CoreMetrics } from '../metrics/core-metrics.js';

/** What started a run: `request` is "reconcile now" (POST /api/v1/gitops/reconcile), `manual` a run asked for by code (an acceptance, `--once`). */
export type Trigger = 'start' | 'interval' | 'webhook' | 'watch' | 'manual' | 'request';
export type RunReport = {
  repo: string;
  branch: string | null;
  commit_sha: string | null;
  trigger: Trigger;
  status: 'applied' | 'no_changes' | 'rejected' | 'failed' | 'partial' | 'refused';
  started_at: number;
  finished_at: number;
  counts: object;
  domains: object[];
  problems: string[];
  drift: Drift[];
  /** Drift this run reverted (self_heal on), with the drifted values as `before`. */
  reverted: Drift[];
  /** Live items of git-owned domains their file does not list, kept (prune: false). */
  not_in_git: { domain: string; resource: string; key: string }[];
  /** The domains the commit describes, with their files, once it loaded and planned without problems: what the dashboard shows as owned by git. */
  managed: { domain: string; file: string }[];
  /** The plan as Markdown (what `cdn plan --markdown` prints), for the dashboard. */
  plan_markdown: string | null;
  /** Live domains this repository owned whose file is gone, left alone (delete_removed_domains is false). */
  orphaned: string[];
  /** The operator's acceptance that let a plan the safety gate refused apply. */
  accepted: { reason: string; actor: string; at: number; safety: string } | null;
  error: string | null;
  /** The change_seq of the run's last write (X-CDN-Config-Change), as a string; null when it wrote nothing. GET /api/v1/config/rollout?run= resolves it. */
  config_change: string | null;
};

type Acceptance = { commit_sha: string; reason: string; actor: string; safety: string; used_at: number | null; created_at: number };

export type ControllerOptions = {
  source: DesiredSource;
  client: ApiClient;
  intervalMs: number;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  watchDebounceMs?: number;
  /** The interval holds the process open until stop() (the standalone `cdn reconcile`, which has no server to do it). */
  holdProcess?: boolean;
  /** Hears of every run: its status, duration and drift (the core's metrics, docs/metrics.md). */
  metrics?: Pick<CoreMetrics, 'gitopsRun'>;
};

const seconds = () => Math.floor(Date.now() / 1000);

// A refusal ends with the command that lets the plan apply: the controller has no --force.
const ACCEPT_HINT = '; to apply it anyway: ';

// A word as the shell reads it: quoted unless it is made of characters the shell leaves alone.
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** Why the controller refused a plan: the safety gate's warning and the `cdn accept-plan` line that lets it apply once. */
function refusalOf(safety: string, repo: string, sha: string | null): string {
  if (!sha) return `${safety}; only the plan of a git commit can be accepted (cdn accept-plan), so commit the desired state`;
  return `${safety}${ACCEPT_HINT}cdn accept-plan --repo ${shellWord(repo)} --commit ${sha} --reason "<why the deletes are intended>"`;
}

// The safety gate's warning in a refusal, which an acceptance keeps as its `safety`.
function warningOf(refusal: string): string {
  return refusal.split(ACCEPT_HINT)[0];
}

// Statuses of runs that wrote nothing: recorded once for as long as they say the same thing.
const REPEATABLE = new Set(['no_changes', 'rejected', 'refused']);

/** What makes two runs say the same thing: commit, status, problems, error, drift and orphans. */
function sameness(report: Pick<RunReport, 'commit_sha' | 'status' | 'problems' | 'error' | 'drift' | 'orphaned'> & { not_in_git?: unknown[] }): string {
  return JSON.stringify([report.commit_sha, report.status, report.problems, report.error, report.drift?.length ?? 0, report.orphaned, report.not_in_git?.length ?? 0]);
}

/**
 * Reconciles one repository into the service: on start, on an interval, on a
 * webhook and (for a working copy) on file changes. Reconciles never overlap:
 * they run one at a time, and triggers arriving while one is queued fold into it.
 * Every run is reported to POST /api/v1/gitops/runs in a `finally`.
 */
export class GitopsController {
  private readonly queue = new PQueue({ concurrency: 1 });
  // The reason of the reconcile waiting to start, if one is: a later "reconcile now" request makes it one.
  private queued: Trigger | undefined;
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastRecorded: string | undefined;
  // The desired state last applied from git per domain, and its revision: tells drift from git changes (kept in memory).
  private readonly lastApplied = new Map<string, Applied>();
  // Owned domains whose file is gone: still read every run, so they stay reported until deleted or back in git.
  private orphaned = new Set<string>();

  constructor(private readonly options: ControllerOptions) {}

  /** The repository as its runs are recorded (what POST /api/v1/gitops/reconcile names). */
  get repo(): string {
    return this.options.source.label;
  }

  /**
   * Rebuilds after a restart what the core recorded for this repository: the orphaned
   * domains, and the last-applied state from the last good commit (sources with
   * history), so drift is still told from git changes.
   */
  async restore(): Promise<void> {
    const { source, client, logger } = this.options;
    try {
      const { repos } = (await client.request('GET', '/api/v1/gitops/status')).data as { repos: { repo: string; last_good_commit: string | null; orphaned?: string[]; last_run?: RunReport }[] };
      const recorded = repos.find((repo) => repo.repo === source.label);
      this.orphaned = new Set(recorded?.orphaned ?? []);
      if (recorded?.last_run) this.lastRecorded = sameness(recorded.last_run);
      const sha = recorded?.last_good_commit;
      if (!sha || !source.atCommit) return;
      await source.fetch();
      const state = await source.atCommit(sha, (dir) => loadDesiredState(dir));
      if (!state || state.problems.length) return;
      const revision = revisionOf(sha, state.digest);
      for (const domain of state.domains) this.lastApplied.set(domain.spec.domain, { model: desiredModel(domain.spec), revision });
      logger.info({ commit: sha, domains: this.lastApplied.size }, 'gitops last-applied state restored');
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'could not restore the last-applied gitops state');
    }
  }

  /** Starts the interval, the file watcher (working copies) and a first reconcile. */
  start(): void {
    this.timer = setInterval(() => this.trigger('interval'), this.options.intervalMs);
    if (!this.options.holdProcess) this.timer.unref();
    const dir = this.options.source.watchDir;
    if (dir) {
      this.watcher = watch(dir, { ignoreInitial: true, ignored: (file) => file.includes('/.git/') });
      this.watcher.on('all', () => {
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => this.trigger('watch'), this.options.watchDebounceMs ?? 300);
      });
    }
    void this.queue.add(() => this.restore());
    this.trigger('start');
  }

  /** Asks for a reconcile; returns at once. One already waiting takes the request (and counts as requested if this one is). */
  trigger(reason: Trigger): void {
    if (this.stopped) return;
    if (this.queued) {
      if (reason === 'request') this.queued = reason;
      return;
    }
    this.queued = reason;
    void this.queue.add(() => {
      const queued = this.queued!;
      this.queued = undefined;
      return this.reconcile(queued);
    });
  }

  /** Runs one reconcile after any in progress, and returns its report. */
  async reconcileNow(reason: Trigger = 'manual'): Promise<RunReport> {
    return (await this.queue.add(() => this.reconcile(reason)))!;
  }

  /** Stops triggering, drops a reconcile still waiting to start and waits for the one in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.debounce);
    await this.watcher?.close();
    this.queue.clear();
    this.queued = undefined;
    await this.queue.onIdle();
  }

  private async reconcile(trigger: Trigger): Promise<RunReport> {
    const { source, client, logger } = this.options;
    const report: RunReport = { repo: source.label, branch: source.branch, commit_sha: null, trigger, status: 'failed', started_at: seconds(), finished_at: 0, counts: {}, domains: [], problems: [], drift: [], reverted: [], not_in_git: [], managed: [], plan_markdown: null, orphaned: [...this.orphaned], accepted: null, error: null, config_change: null };
    const started = performance.now();
    try {
      const snapshot = await source.fetch();
      report.commit_sha = snapshot.sha;
      const state = await loadDesiredState(snapshot.dir);
      if (state.problems.length) {
        report.status = 'rejected';
        report.problems = sortProblems(state.problems).map(formatProblem);
        return report;
      }
      const built = await buildPlan(client, state, { previouslyOwned: [...this.lastApplied.keys(), ...this.orphaned], env: this.options.env });
      if (built.problems.length) {
        report.status = 'rejected';
        report.problems = sortProblems(built.problems).map(formatProblem);
        return report;
      }
      report.managed = state.domains.map((domain) => ({ domain: domain.spec.domain, file: domain.file }));
      this.orphaned = new Set(built.plan.domains.filter((domain) => domain.action === 'orphaned').map((domain) => domain.domain));
      report.orphaned = [...this.orphaned];
      const selfHeal = new Map(state.domains.map((domain) => [domain.spec.domain, domain.spec.policy.self_heal]));
      const revision = revisionOf(snapshot.sha, state.digest);
      const { plan, drift, reverted } = withoutDrift(built.plan, this.lastApplied, (apex) => selfHeal.get(apex) ?? false, revision);
      // The safety gate weighs what this run deletes: drift left alone is not deleted.
      const planned = { ...built, plan, safety: safetyProblem(plan, safetyGate(state.repository)) };
      report.drift = withLiveFields(drift, built.live);
      report.reverted = reverted;
      report.not_in_git = plan.domains.flatMap((domain) => domain.unmanaged.map((item) => ({ domain: domain.domain, ...item })));
      report.plan_markdown = planMarkdown(planned.plan, planned.safety);
      report.counts = { ...planned.plan.counts, drift: drift.length, reverted: reverted.length, not_in_git: report.not_in_git.length, orphaned: report.orphaned.length };
      if (planned.safety) {
        const acceptance = await this.acceptanceOf(report.commit_sha);
        if (!acceptance || acceptance.used_at !== null || warningOf(acceptance.safety) !== planned.safety) {
          report.status = 'refused';
          const warning = acceptance && acceptance.used_at === null ? `${planned.safety} (the acceptance by ${acceptance.actor} was for another plan: ${warningOf(acceptance.safety)})` : planned.safety;
          report.error = refusalOf(warning, source.label, report.commit_sha);
          return report;
        }
        report.accepted = { reason: acceptance.reason, actor: acceptance.actor, at: acceptance.created_at, safety: planned.safety };
      }
      const { creates, updates, deletes } = planned.plan.counts;
      if (creates + updates + deletes === 0) {
        report.status = 'no_changes';
        this.remember(planned.desired, [], revision);
        return report;
      }
      // Each write names this repository and commit, for its audit event (docs/api.md, Audit).
      const writer = client.withHeaders(gitopsSourceHeaders({ repo: source.label, commit: report.commit_sha }));
      // Recorded even when applying throws half-way: the writes before it are published too.
      const results = await applyPlan(writer, planned, this.options.env ?? process.env).finally(() => (report.config_change = writer.configChange === null ? null : String(writer.configChange)));
      report.domains = results;
      this.remember(planned.desired, results.filter((result) => !result.ok).map((result) => result.domain), revision);
      this.forget(results, planned);
      const failed = results.filter((result) => !result.ok).length;
      report.status = failed === 0 ? 'applied' : failed === results.length ? 'failed' : 'partial';
      logger.info({ commit: report.commit_sha, plan: summaryLine(planned.plan), failed }, 'gitops reconcile applied');
      return report;
    } catch (error) {
      report.error = (error as Error).message;
      return report;
    } finally {
      report.finished_at = seconds();
      // A run that stopped before its plan (a fetch that failed, bad YAML) found no drift to count.
      this.options.metrics?.gitopsRun(report.status, (performance.now() - started) / 1000, report.plan_markdown === null ? undefined : report.drift.length);
      await this.record(report);
    }
  }

  // The operator's acceptance of this commit's refused plan (POST /api/v1/gitops/acceptances), if any:
  // it lets the plan apply once (recording the run uses it up), and only while the gate says the same.
  private async acceptanceOf(sha: string | null): Promise<Acceptance | undefined> {
    if (!sha) return undefined;
    const query = new URLSearchParams({ repo: this.options.source.label, commit_sha: sha });
    return ((await this.options.client.request('GET', `/api/v1/gitops/acceptances?${query}`)).data as Acceptance[])[0];
  }

  private remember(desired: Map<string, DomainModel>, failed: string[], revision: string): void {
    for (const [apex, model] of desired) if (!failed.includes(apex)) this.lastApplied.set(apex, { model, revision });
  }

  // A domain whose file was removed and that was deleted (delete_removed_domains) is no longer owned.
  private forget(results: { domain: string; ok: boolean }[], planned: { plan: { domains: { domain: string; action: string }[] } }): void {
    for (const domain of planned.plan.domains) {
      if (domain.action === 'delete' && results.some((result) => result.domain === domain.domain && result.ok)) this.lastApplied.delete(domain.domain);
    }
  }

  // A run that changed nothing and says the same as the last recorded one (no changes, or the
  // same commit rejected or refused for the same reasons) is not recorded again, unless someone
  // asked for it through the API (reconcile now): they look for its answer.
  private async record(report: RunReport): Promise<void> {
    const seen = sameness(report);
    if (REPEATABLE.has(report.status) && seen === this.lastRecorded && report.trigger !== 'request') return;
    try {
      await this.options.client.request('POST', '/api/v1/gitops/runs', report);
      this.lastRecorded = seen;
    } catch (error) {
      this.options.logger.warn({ err: (error as Error).message }, 'could not record the gitops run');
    }
    if (report.status !== 'applied' && report.status !== 'no_changes') {
      this.options.logger.warn({ status: report.status, commit: report.commit_sha, error: report.error, problems: report.problems.slice(0, 5) }, 'gitops reconcile did not apply');
    }
  }
}

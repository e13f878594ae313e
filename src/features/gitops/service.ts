import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { zoneStatuses } from '../dns/zone-sync.js';
import { ConflictError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import { withoutUrlCredentials } from '../../shared/url-credentials.js';

export type RunReport = {
  repo: string;
  branch?: string | null;
  commit_sha?: string | null;
  trigger: string;
  status: string;
  started_at: number;
  finished_at?: number | null;
  counts?: object;
  domains?: unknown[];
  problems?: unknown[];
  drift?: unknown[];
  orphaned?: string[];
  reverted?: unknown[];
  not_in_git?: unknown[];
  managed?: { domain: string; file: string }[];
  plan_markdown?: string | null;
  accepted?: object | null;
  error?: string | null;
  config_change?: string | null;
};

type RunRow = Awaited<ReturnType<Db['gitopsRun']['findFirstOrThrow']>>;

function serializeRun(row: RunRow) {
  return { ...row, id: String(row.id), config_change: row.config_change === null || row.config_change === undefined ? null : String(row.config_change), started_at: unixSeconds(row.started_at), finished_at: unixSeconds(row.finished_at), created_at: unixSeconds(row.created_at) };
}

const toDate = (seconds: number | null | undefined) => (seconds === null || seconds === undefined ? null : new Date(seconds * 1000));

/**
 * A run as it may be stored and shown: its repository named without the credentials a URL may
 * carry, and none in its error (git's messages quote URLs), whatever the controller sent.
 */
function withoutCredentials(report: RunReport): RunReport {
  return { ...report, repo: withoutUrlCredentials(report.repo), error: report.error && withoutUrlCredentials(report.error) };
}

/**
 * Stores one run reported by a controller. A run that applied a refused plan under an
 * acceptance uses it up in the same transaction: a later refusal of the commit needs a new one.
 */
export async function recordRun(db: Db, input: RunReport) {
  const report = withoutCredentials(input);
  const data = {
    ...report,
    started_at: toDate(report.started_at)!,
    finished_at: toDate(report.finished_at),
    counts: (report.counts ?? {}) as object,
    domains: (report.domains ?? []) as object,
    problems: (report.problems ?? []) as object,
    drift: (report.drift ?? []) as object,
    orphaned: report.orphaned ?? [],
    reverted: (report.reverted ?? []) as object,
    not_in_git: (report.not_in_git ?? []) as object,
    managed: report.managed ?? [],
    accepted: (report.accepted ?? undefined) as object | undefined,
    config_change: report.config_change ? BigInt(report.config_change) : null,
  };
  const create = db.gitopsRun.create({ data });
  if (!report.accepted || !report.commit_sha) return serializeRun(await create);
  const useUp = db.gitopsAcceptance.updateMany({ where: { repo: report.repo, commit_sha: report.commit_sha, used_at: null }, data: { used_at: new Date() } });
  const [, row] = await db.$transaction([useUp, create]);
  return serializeRun(row);
}

/**
 * Runs newest first, without their plan Markdown and described domains (large; the status has
 * them for each repository's latest run).
 */
export async function listRuns(db: Db, paging: Paging) {
  const rows = await db.gitopsRun.findMany({ orderBy: { id: 'desc' }, skip: paging.offset, take: paging.limit, omit: { plan_markdown: true, managed: true } });
  return rows.map((row) => serializeRun(row as RunRow));
}

const HEALTHY = new Set(['applied', 'no_changes']);

function domainsOf(run: RunRow): string[] {
  return (run.domains as { domain?: unknown }[]).flatMap((entry) => (typeof entry?.domain === 'string' ? [entry.domain] : []));
}

type Managed = { domain: string; file: string };

/**
 * What the repository owns, for the dashboard: the domains of its newest commit that loaded
 * without problems (a rejected or unfetched commit changes nothing), each with its file and the
 * commit that last wrote to it (else the last good commit); and the live items its newest planned
 * run kept though their file does not list them (not_in_git, prune: false). A run's per-domain
 * results are what a controller reported (free-form JSON): only well-formed ones count.
 */
async function ownership(db: Db, repo: string, lastGood: string | null) {
  const [described] = await db.$queryRaw<{ managed: Managed[] }[]>`
    SELECT managed FROM gitops_runs WHERE repo = ${repo} AND managed <> '[]'::jsonb ORDER BY id DESC LIMIT 1`;
  const writes = await db.$queryRaw<{ domain: string; commit_sha: string }[]>`
    SELECT DISTINCT ON (result->>'domain') result->>'domain' AS domain, run.commit_sha
    FROM gitops_runs run, jsonb_array_elements(run.domains) AS result
    WHERE run.repo = ${repo} AND run.commit_sha IS NOT NULL AND result->'ok' = 'true'::jsonb AND jsonb_typeof(result->'domain') = 'string'
      AND CASE WHEN jsonb_typeof(result->'applied') = 'number' THEN (result->'applied')::numeric > 0 ELSE false END
    ORDER BY result->>'domain', run.id DESC`;
  const planned = await db.gitopsRun.findFirst({ where: { repo, plan_markdown: { not: null } }, orderBy: { id: 'desc' }, select: { not_in_git: true } });
  const lastWrite = new Map(writes.map((row) => [row.domain, row.commit_sha]));
  return {
    managed: (described?.managed ?? []).map((item) => ({ ...item, commit: lastWrite.get(item.domain) ?? lastGood })),
    not_in_git: (planned?.not_in_git ?? []) as unknown[],
  };
}

/**
 * Per repository: the latest run, the commit last applied without errors (still
 * in force when later commits are rejected), and a state: ok, drifted (git-owned
 * items were changed through the API and left so), rejected (the newest commit
 * does not validate), failed/partial (apply errors) or refused (safety gate);
 * and the domains it owned whose file is gone, left in place (orphaned); what it owns (managed,
 * not_in_git); whether this core runs its controller (in_core: POST /api/v1/gitops/reconcile
 * can wake it); and the DNS publication status of the latest run's domains (dns).
 */
export async function gitopsStatus(db: Db, config: Config, coreRepo?: string) {
  const repos = await db.gitopsRun.groupBy({ by: ['repo'], _max: { id: true } });
  const status = [];
  for (const repo of repos) {
    const latest = await db.gitopsRun.findUniqueOrThrow({ where: { id: repo._max.id! } });
    const good = await db.gitopsRun.findFirst({ where: { repo: repo.repo, status: { in: [...HEALTHY] } }, orderBy: { id: 'desc' } });
    status.push({
      repo: repo.repo,
      branch: latest.branch,
      in_core: repo.repo === coreRepo,
      state: HEALTHY.has(latest.status) ? ((latest.drift as unknown[]).length ? 'drifted' : 'ok') : latest.status,
      last_run: serializeRun(latest),
      last_good_commit: good?.commit_sha ?? null,
      last_good_at: unixSeconds(good?.finished_at ?? null),
      orphaned: latest.orphaned as string[],
      ...(await ownership(db, repo.repo, good?.commit_sha ?? null)),
      // Whether each domain of the latest run has its zone published as it stands (docs/dns-publishing.md).
      dns: await zoneStatuses(db, config, domainsOf(latest)),
    });
  }
  return { repos: status };
}

type AcceptanceRow = Awaited<ReturnType<Db['gitopsAcceptance']['findFirstOrThrow']>>;

function serializeAcceptance(row: AcceptanceRow) {
  return { id: String(row.id), repo: row.repo, commit_sha: row.commit_sha, reason: row.reason, actor: row.actor, safety: row.safety, used_at: unixSeconds(row.used_at), created_at: unixSeconds(row.created_at) };
}

/**
 * Accepts the plan the safety gate refused for one commit of a repository: the controller
 * applies that commit's plan anyway, once, and only while the gate still says what it said
 * when it was accepted (`safety`: the same counts). 409 unless the commit's latest run was refused.
 */
export async function acceptRefusedPlan(db: Db, body: { repo: string; commit_sha: string; reason: string }, actor: string) {
  const input = { ...body, repo: withoutUrlCredentials(body.repo) };
  const run = await db.gitopsRun.findFirst({ where: { repo: input.repo, commit_sha: { startsWith: input.commit_sha } }, orderBy: { id: 'desc' } });
  if (!run || run.status !== 'refused') {
    throw new ConflictError('no refused plan to accept', 'commit_sha', `the latest run of ${input.repo} at ${input.commit_sha} ${run ? `was ${run.status}, not refused` : 'does not exist'}`);
  }
  const commit = run.commit_sha!;
  const row = await db.gitopsAcceptance.upsert({
    where: { repo_commit_sha: { repo: input.repo, commit_sha: commit } },
    create: { repo: input.repo, commit_sha: commit, reason: input.reason, actor, safety: run.error ?? '' },
    update: { reason: input.reason, actor, safety: run.error ?? '', used_at: null, created_at: new Date() },
  });
  return serializeAcceptance(row);
}

/** The acceptances of refused plans, newest first, optionally of one repository and commit. */
export async function listAcceptances(db: Db, filter: { repo?: string; commit_sha?: string }, paging: Paging) {
  const where = { ...filter, repo: filter.repo === undefined ? undefined : withoutUrlCredentials(filter.repo) };
  const rows = await db.gitopsAcceptance.findMany({ where, orderBy: { id: 'desc' }, skip: paging.offset, take: paging.limit });
  return rows.map(serializeAcceptance);
}

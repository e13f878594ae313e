import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { zoneStatuses } from '../dns/zone-sync.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';

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
  error?: string | null;
};

type RunRow = Awaited<ReturnType<Db['gitopsRun']['findFirstOrThrow']>>;

function serializeRun(row: RunRow) {
  return { ...row, id: String(row.id), started_at: unixSeconds(row.started_at), finished_at: unixSeconds(row.finished_at), created_at: unixSeconds(row.created_at) };
}

const toDate = (seconds: number | null | undefined) => (seconds === null || seconds === undefined ? null : new Date(seconds * 1000));

/** Stores one run reported by a controller. */
export async function recordRun(db: Db, report: RunReport) {
  const row = await db.gitopsRun.create({
    data: {
      ...report,
      started_at: toDate(report.started_at)!,
      finished_at: toDate(report.finished_at),
      counts: (report.counts ?? {}) as object,
      domains: (report.domains ?? []) as object,
      problems: (report.problems ?? []) as object,
      drift: (report.drift ?? []) as object,
      orphaned: report.orphaned ?? [],
    },
  });
  return serializeRun(row);
}

/** Runs newest first. */
export async function listRuns(db: Db, paging: Paging) {
  const rows = await db.gitopsRun.findMany({ orderBy: { id: 'desc' }, skip: paging.offset, take: paging.limit });
  return rows.map(serializeRun);
}

const HEALTHY = new Set(['applied', 'no_changes']);

function domainsOf(run: RunRow): string[] {
  return (run.domains as { domain?: unknown }[]).flatMap((entry) => (typeof entry?.domain === 'string' ? [entry.domain] : []));
}

/**
 * Per repository: the latest run, the commit last applied without errors (still
 * in force when later commits are rejected), and a state: ok, drifted (git-owned
 * items were changed through the API and left so), rejected (the newest commit
 * does not validate), failed/partial (apply errors) or refused (safety gate);
 * and the domains it owned whose file is gone, left in place (orphaned); and the DNS
 * publication status of the latest run's domains (dns).
 */
export async function gitopsStatus(db: Db, config: Config) {
  const repos = await db.gitopsRun.groupBy({ by: ['repo'], _max: { id: true } });
  const status = [];
  for (const repo of repos) {
    const latest = await db.gitopsRun.findUniqueOrThrow({ where: { id: repo._max.id! } });
    const good = await db.gitopsRun.findFirst({ where: { repo: repo.repo, status: { in: [...HEALTHY] } }, orderBy: { id: 'desc' } });
    status.push({
      repo: repo.repo,
      branch: latest.branch,
      state: HEALTHY.has(latest.status) ? ((latest.drift as unknown[]).length ? 'drifted' : 'ok') : latest.status,
      last_run: serializeRun(latest),
      last_good_commit: good?.commit_sha ?? null,
      last_good_at: unixSeconds(good?.finished_at ?? null),
      orphaned: latest.orphaned as string[],
      // Whether each domain of the latest run has its zone published as it stands (docs/dns-publishing.md).
      dns: await zoneStatuses(db, config, domainsOf(latest)),
    });
  }
  return { repos: status };
}

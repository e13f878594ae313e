import type { Config } from '../../config/load.js';
import type { DnsSyncStatus } from '../../publish/dns/dns-sync-loop.js';
import type { Db } from '../../db/client.js';
import { unixSeconds } from '../../http/timestamps.js';
import { matchProblems } from '../../shared/rules/match-problems.js';
import type { Match } from '../../shared/rules/types.js';
import { gitopsStatus } from '../gitops/service.js';
import { RULE_KINDS } from '../rules/kinds.js';
import { expiringCertificates, failedSslJobs } from '../ssl/ssl-warnings.js';

export type Warning = { code: string; severity: 'info' | 'warning' | 'critical'; message: string; domain_id?: string; detail?: Record<string, unknown> };

const DIRTY_WARNING_MS = 5 * 60 * 1000;

async function pendingDomains(db: Db): Promise<Warning[]> {
  const rows = await db.domain.findMany({ where: { status: 'pending_nameserver' }, include: { nameservers: true }, orderBy: { created_at: 'asc' } });
  return rows.map((domain) => ({
    code: 'domain_waiting_for_nameservers',
    severity: 'info',
    message: `${domain.domain} waits for its delegation to ${domain.nameservers.filter((ns) => ns.kind === 'expected').map((ns) => ns.hostname).join(', ')}`,
    domain_id: domain.id,
    detail: { observed: domain.nameservers.filter((ns) => ns.kind === 'observed').map((ns) => ns.hostname), checked_at: unixSeconds(domain.nameservers_checked_at) },
  }));
}

async function originProblems(db: Db): Promise<Warning[]> {
  const rows = await db.domain.findMany({
    where: { status: 'active' },
    select: { id: true, domain: true, origins: { select: { role: true, enabled: true, drained: true } }, dns_records: { where: { proxied: true }, select: { id: true }, take: 1 } },
  });
  return rows.flatMap((domain): Warning[] => {
    if (domain.origins.length === 0) {
      return domain.dns_records.length ? [{ code: 'domain_without_origins', severity: 'warning', message: `${domain.domain} has proxied records but no origin`, domain_id: domain.id }] : [];
    }
    const primary = domain.origins.some((origin) => origin.role === 'primary' && origin.enabled && !origin.drained);
    return primary ? [] : [{ code: 'origins_without_primary', severity: 'warning', message: `${domain.domain} has no enabled, undrained primary origin; traffic goes to backups`, domain_id: domain.id }];
  });
}

// Without the key no certificate can be stored, so no domain can be served over HTTPS.
async function sslKeyStorage(config: Config): Promise<Warning[]> {
  if (config.sslSecretKey) return [];
  return [{ code: 'ssl_key_storage_not_configured', severity: 'warning', message: 'CDN_SSL_SECRET_KEY is not set, so no certificate private key can be stored: set it on every core to the base64 of 32 random bytes (openssl rand -base64 32)' }];
}

async function staleEdges(db: Db, freshSeconds: number, now: Date): Promise<Warning[]> {
  const rows = await db.edgeNode.findMany({ where: { enabled: true, OR: [{ last_heartbeat_at: null }, { last_heartbeat_at: { lt: new Date(now.getTime() - freshSeconds * 1000) } }] } });
  return rows.map((edge) => ({
    code: 'edge_stale',
    severity: 'warning',
    message: `edge ${edge.edge_id} has not sent a heartbeat for over ${freshSeconds} s and is out of the pool`,
    detail: { edge_id: edge.edge_id, last_heartbeat_at: unixSeconds(edge.last_heartbeat_at) },
  }));
}

async function publishProblems(db: Db, now: Date): Promise<Warning[]> {
  const state = await db.publishState.findUnique({ where: { id: 1 } });
  if (!state) return [];
  // One warning for a failing publisher, carrying the reason; changes waiting behind it are part of it.
  if (state.last_error && (!state.last_publish_at || (state.last_error_at && state.last_error_at > state.last_publish_at))) {
    const retry = state.retry_at ? `; next attempt at ${state.retry_at.toISOString()} (POST /api/v1/config/snapshots/rebuild tries now)` : '';
    return [{
      code: 'publish_failing',
      severity: 'critical',
      message: `config publishing fails: ${state.last_error}${retry}`,
      detail: { since: unixSeconds(state.failing_since ?? state.last_error_at), failures: state.publish_failures, last_attempt_at: unixSeconds(state.last_error_at), retry_at: unixSeconds(state.retry_at) },
    }];
  }
  const warnings: Warning[] = [];
  if (state.change_seq > state.published_seq && state.dirty_since && now.getTime() - state.dirty_since.getTime() > DIRTY_WARNING_MS) {
    warnings.push({ code: 'config_not_published', severity: 'warning', message: 'changes have waited more than 5 minutes to be published to the edges', detail: { dirty_since: unixSeconds(state.dirty_since) } });
  }
  return warnings;
}

// A version that failed on the canaries was rolled back, and holds every later version until an operator acts (docs/rollout.md).
async function failedCanaries(db: Db): Promise<Warning[]> {
  const failed = await db.configCanary.findFirst({ where: { state: 'failed' }, orderBy: { version: 'desc' } });
  if (!failed) return [];
  return [{
    code: 'rollout_failed',
    severity: 'critical',
    message: `config version ${failed.version} failed on its canaries and was rolled back to version ${failed.baseline_version}; later versions wait until an operator promotes or aborts it (cdn rollout promote|abort): ${failed.reason ?? ''}`,
    detail: { version: failed.version, baseline_version: failed.baseline_version, canary_edges: failed.canary_edges, decided_at: unixSeconds(failed.decided_at), numbers: failed.numbers },
  }];
}

// A run that stopped before its end: no zone could be written (PowerDNS down, or refusing the key or server id).
async function dnsPublishingProblems(loop: DnsSyncStatus | undefined): Promise<Warning[]> {
  if (!loop?.last_aborted) return [];
  return [{ code: 'dns_publishing_failing', severity: 'critical', message: `DNS publishing to PowerDNS fails: ${loop.last_aborted}`, detail: { last_run_at: loop.last_run_at } }];
}

async function dnsProblems(db: Db): Promise<Warning[]> {
  const rows = await db.dnsZoneState.findMany({ where: { last_error: { not: null } } });
  return rows.map((zone) => ({ code: 'dns_sync_failing', severity: 'warning', message: `zone ${zone.zone_name} does not sync: ${zone.last_error}`, domain_id: zone.domain_id, detail: { attempts: zone.attempts } }));
}

async function gitopsProblems(db: Db, config: Config): Promise<Warning[]> {
  const { repos } = await gitopsStatus(db, config);
  return repos
    .filter((repo) => repo.state !== 'ok')
    .map((repo) => ({
      code: `gitops_${repo.state}`,
      severity: ['rejected', 'refused', 'drifted'].includes(repo.state) ? 'warning' : 'critical',
      message: `the GitOps repository ${repo.repo} is ${repo.state} at ${repo.last_run.commit_sha?.slice(0, 12) ?? 'its latest commit'}${repo.last_good_commit ? `; ${repo.last_good_commit.slice(0, 12)} stays in force` : ''}`,
      detail: { problems: repo.last_run.problems, drift: repo.last_run.drift, error: repo.last_run.error, last_good_commit: repo.last_good_commit },
    }));
}

type StoredRule = { id: string; domain_id: string; name: string; match: unknown };

// A rule saved before a check existed (a regex RE2 cannot run: lookaround, a backreference) is kept,
// but its pattern never matches; a WAF rule would stop blocking without a word, so it is listed here.
async function unusableRules(db: Db): Promise<Warning[]> {
  const kinds = await Promise.all(
    RULE_KINDS.map(async (kind) => {
      const delegate = db[kind.model] as unknown as { findMany: (query: object) => Promise<StoredRule[]> };
      const rules = await delegate.findMany({ where: { enabled: true }, select: { id: true, domain_id: true, name: true, match: true } });
      return rules.flatMap((rule): Warning[] => {
        const problems = matchProblems((rule.match ?? {}) as Match);
        if (problems.length === 0) return [];
        return [{
          code: 'rule_pattern_unusable',
          severity: 'warning',
          message: `${kind.noun} rule "${rule.name}" has a pattern the matcher refuses, so it never matches: ${problems[0].field} ${problems[0].detail}`,
          domain_id: rule.domain_id,
          detail: { kind: kind.path, rule_id: rule.id, problems },
        }];
      });
    }),
  );
  return kinds.flat();
}

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 };

/** Actionable items, most severe first. */
export async function warnings(db: Db, config: Config, dnsLoop: DnsSyncStatus | undefined, now = new Date()) {
  const heartbeatFreshSeconds = config.edgeHeartbeatFreshSeconds;
  const groups = await Promise.all([dnsPublishingProblems(dnsLoop), gitopsProblems(db, config), publishProblems(db, now), failedCanaries(db), expiringCertificates(db, now), failedSslJobs(db), sslKeyStorage(config), staleEdges(db, heartbeatFreshSeconds, now), dnsProblems(db), unusableRules(db), originProblems(db), pendingDomains(db)]);
  const list = groups.flat().sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  return { count: list.length, warnings: list };
}

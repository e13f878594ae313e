import { isIP } from 'node:net';
import type { ValidateFunction } from 'ajv';
import type { Db } from '../../db/client.js';
import { LOCK_KEYS } from '../../db/advisory-lock.js';
import { storableProblem } from '../../http/storable-input.js';
import { schemaProblem } from '../../http/validation.js';
import { storedClientIp, type ClientIpPolicy } from './client-ip.js';
import { apexCandidates, domainOfHosts } from './domain-lookup.js';
import type { Rejection } from './usage.js';

type SecurityEventInput = { domain: string; kind: string; action: string; rule_id?: string | null; method?: string | null; path?: string | null; client_country?: string | null; client_ip?: string | null; user_agent?: string | null; details?: object; timestamp: number };

const FUTURE_TOLERANCE_SECONDS = 300;

function checkEvent(validate: ValidateFunction, event: unknown, index: number, now: number): Rejection | undefined {
  const problem = schemaProblem(validate, event, 'event');
  if (problem) return { index, field: problem.field, reason: problem.detail };
  const unstorable = storableProblem(event);
  if (unstorable) return { index, field: unstorable.field, reason: unstorable.detail };
  const security = event as SecurityEventInput;
  if (security.client_ip && !isIP(security.client_ip)) return { index, field: 'client_ip', reason: 'client_ip must be an IP address' };
  if (security.timestamp > now + FUTURE_TOLERANCE_SECONDS) return { index, field: 'timestamp', reason: 'timestamp is in the future' };
  return undefined;
}

/**
 * Ingests a batch of security events in the caller's transaction. Pushes from the
 * same edge queue are serialized by a transaction-scoped advisory lock on
 * (edge, queue), so retries and parallel flushes of one queue cannot interleave.
 * Idempotency keys, per-event rejection and IP hashing work as for usage.
 */
export async function ingestSecurityEvents(db: Db, batch: { idempotency_key?: string; queue: string; events: unknown[] }, edgeId: string, options: { validate: ValidateFunction; clientIp: ClientIpPolicy; now?: Date }) {
  await db.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_KEYS.securityQueue}::int, hashtext(${`${edgeId}/${batch.queue}`}))`;
  if (batch.idempotency_key) {
    const inserted = await db.ingestKey.createMany({ data: [{ stream: `security/${batch.queue}`, key: batch.idempotency_key, edge_id: edgeId, event_count: batch.events.length }], skipDuplicates: true });
    if (inserted.count === 0) return { duplicate: true, accepted: 0, rejected: [] as Rejection[] };
  }
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const rejected: Rejection[] = [];
  const valid: SecurityEventInput[] = [];
  batch.events.forEach((event, index) => {
    const rejection = checkEvent(options.validate, event, index, now);
    if (rejection) rejected.push(rejection);
    else valid.push(event as SecurityEventInput);
  });
  const hosts = new Set(valid.map((event) => event.domain));
  const ids = domainOfHosts(hosts, await db.domain.findMany({ where: { domain: { in: apexCandidates(hosts) } }, select: { id: true, domain: true } }));
  await db.securityEvent.createMany({
    data: valid.map((event) => ({
      domain_id: ids.get(event.domain) ?? null,
      domain: event.domain.toLowerCase(),
      edge_id: edgeId,
      kind: event.kind,
      action: event.action,
      rule_id: event.rule_id ?? null,
      method: event.method ?? null,
      path: event.path ?? null,
      client_country: event.client_country ?? null,
      client_ip: storedClientIp(event.client_ip, options.clientIp),
      user_agent: event.user_agent ?? null,
      details: (event.details ?? {}) as object,
      occurred_at: new Date(event.timestamp * 1000),
    })),
  });
  return { duplicate: false, accepted: valid.length, rejected };
}

import { isIP } from 'node:net';
import type { ValidateFunction } from 'ajv';
import type { Db } from '../../db/client.js';
import { LOCK_KEYS } from '../../db/advisory-lock.js';
import { storedClientIp, type ClientIpPolicy } from './client-ip.js';
import { apexCandidates, domainOfHosts } from './domain-lookup.js';
import { checkItems, type Rejection } from './item-checks.js';

type SecurityEventInput = { domain: string; kind: string; action: string; rule_id?: string | null; method?: string | null; path?: string | null; client_country?: string | null; client_ip?: string | null; user_agent?: string | null; details?: object; timestamp: number };

/**
 * Ingests a batch of security events in the caller's transaction. Pushes from the
 * same edge queue are serialized by a transaction-scoped advisory lock on
 * (edge, queue), so retries and parallel flushes of one queue cannot interleave.
 * Idempotency keys, per-event rejection and IP hashing work as for usage.
 */
export async function ingestSecurityEvents(db: Db, batch: { idempotency_key?: string; queue: string; events: unknown[] }, edgeId: string, options: { validate: ValidateFunction; clientIp: ClientIpPolicy; maxSkewSeconds: number; now?: Date }) {
  await db.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_KEYS.securityQueue}::int, hashtext(${`${edgeId}/${batch.queue}`}))`;
  if (batch.idempotency_key) {
    const inserted = await db.ingestKey.createMany({ data: [{ stream: `security/${batch.queue}`, key: batch.idempotency_key, edge_id: edgeId, event_count: batch.events.length }], skipDuplicates: true });
    if (inserted.count === 0) return { duplicate: true, accepted: 0, rejected: [] as Rejection[] };
  }
  const { valid, rejected } = checkItems<SecurityEventInput>(batch.events, {
    validate: options.validate,
    what: 'event',
    now: options.now ?? new Date(),
    maxSkewSeconds: options.maxSkewSeconds,
    more: (event) => (event.client_ip && !isIP(event.client_ip) ? { field: 'client_ip', reason: 'client_ip must be an IP address' } : undefined),
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

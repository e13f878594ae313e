import { createHash } from 'node:crypto';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { unixSeconds } from '../http/timestamps.js';
import type { CacheSettingsInput } from '../features/cache/settings.js';
import { exportDomains } from '../features/export/service.js';
import { groupValues } from '../features/settings/store.js';
import type { SslSettingsInput } from '../features/ssl/settings.js';

export const SNAPSHOT_SCHEMA_VERSION = 1;
const PAGE = 500;

export type BuiltSnapshot = { body: Buffer; checksum: string; domainCount: number; purgeIds: string[] };
export type SnapshotDefaults = { cache: CacheSettingsInput; ssl: Required<SslSettingsInput> };

// Edges serve active domains only; the rest are left out of the snapshot.
async function activeDomains(db: Db, defaults: SnapshotDefaults) {
  const domains = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await exportDomains(db, { limit: PAGE, offset }, defaults.cache, defaults.ssl);
    domains.push(...page.filter((item) => item.domain.status === 'active'));
    if (page.length < PAGE) return domains;
  }
}

/**
 * The complete, self-contained data an edge needs, as canonical JSON bytes with
 * their SHA-256: active domains with their records, origins (resilience policy
 * included), every rule kind in evaluation order, cache and SSL settings;
 * pending purges; and the edge-wide settings. Content only (no version or time),
 * so an unchanged configuration has an unchanged checksum.
 */
export async function buildSnapshot(db: Db, config: Config, defaults: SnapshotDefaults): Promise<BuiltSnapshot> {
  const [domains, purges, security, edge] = await Promise.all([
    activeDomains(db, defaults),
    db.purgeRequest.findMany({ where: { status: { in: ['queued', 'in_progress'] } }, orderBy: [{ created_at: 'asc' }, { id: 'asc' }] }),
    groupValues(db, 'security'),
    groupValues(db, 'edge'),
  ]);
  // The edge sends the shield header to origins, so it needs the write-only secret the API never shows.
  const secrets = new Map(
    (await db.domain.findMany({ where: { status: 'active', origin_shield_secret: { not: null } }, select: { id: true, origin_shield_secret: true } })).map((row) => [row.id, row.origin_shield_secret]),
  );
  const payload = {
    schema_version: SNAPSHOT_SCHEMA_VERSION,
    edge: { challenge_difficulty: config.edgeChallengeDifficulty, security, ...edge },
    domains: domains.map((item) => ({ ...item, origin_shield: { header_name: item.domain.origin_shield_header_name, secret: secrets.get(item.domain.id) ?? null } })),
    purges: purges.map((purge) => ({ id: purge.id, domain_id: purge.domain_id, scope: purge.scope, value: purge.value, created_at: unixSeconds(purge.created_at) })),
  };
  const body = Buffer.from(JSON.stringify(payload));
  return { body, checksum: createHash('sha256').update(body).digest('hex'), domainCount: domains.length, purgeIds: purges.map((purge) => purge.id) };
}

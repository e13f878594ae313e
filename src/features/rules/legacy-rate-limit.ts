import type { Db } from '../../db/client.js';
import { assertDomainExists } from '../domains/service.js';
import { ruleKind } from './kinds.js';
import { createRule, lockRuleWrites, serializeRule, updateRule } from './service.js';

const RATE_LIMITS = ruleKind('rate-limits');
export const LEGACY_NAME = 'legacy rate limit';

async function findLegacy(db: Db, domainId: string) {
  await assertDomainExists(db, domainId);
  return db.rateLimitRule.findFirst({ where: { domain_id: domainId, legacy: true } });
}

/** The legacy single rate limit: the domain's rate-limit rule flagged legacy, or `{enabled: false}` when none was set. */
export async function getLegacyRateLimit(db: Db, domainId: string) {
  const rule = await findLegacy(db, domainId);
  return rule ? serializeRule(rule as never) : { enabled: false };
}

/** Creates or replaces the legacy rate limit (PUT: fields not given take their defaults; enabled unless said otherwise). */
export async function putLegacyRateLimit(db: Db, domainId: string, input: Record<string, unknown>) {
  // Held across the lookup and the create, so concurrent PUTs cannot both create the legacy rule.
  await lockRuleWrites(db, RATE_LIMITS, domainId);
  const rule = await findLegacy(db, domainId);
  const body = { match: {}, key_header: null, challenge_difficulty: null, enabled: true, ...input };
  if (!rule) return createRule(db, RATE_LIMITS, domainId, { ...body, name: LEGACY_NAME }, { legacy: true });
  return updateRule(db, RATE_LIMITS, domainId, rule.id, body);
}

/** Disables the legacy rate limit (kept, so a later PUT restores its history); a no-op when none exists. */
export async function disableLegacyRateLimit(db: Db, domainId: string): Promise<void> {
  const rule = await findLegacy(db, domainId);
  if (rule) await db.rateLimitRule.update({ where: { id: rule.id }, data: { enabled: false } });
}

import type { Db } from '../../db/client.js';
import { sqlOf } from '../../db/sql.js';
import { RULE_KINDS } from '../rules/kinds.js';

// A record as people name it: its type and full name (`A www.shop.example`, `MX shop.example` for `@`).
const RECORD_NAME = `SELECT r.type || ' ' || CASE WHEN r.name = '@' THEN d.domain ELSE r.name || '.' || d.domain END
  FROM dns_records r JOIN domains d ON d.id = r.domain_id WHERE r.id = $id`;

// Per audit target type, the query that names one target by its id ($id) as it stands now.
const NAMERS: Record<string, string> = {
  domain: 'SELECT domain FROM domains WHERE id = $id',
  usage_aggregates: 'SELECT domain FROM domains WHERE id = $id',
  dns_record: RECORD_NAME,
  origin: 'SELECT host FROM origins WHERE id = $id',
  ...Object.fromEntries(RULE_KINDS.map((kind) => [kind.noun, `SELECT name FROM ${kind.table} WHERE id = $id`])),
  purge_request: `SELECT scope::text || COALESCE(' ' || value, '') FROM purge_requests WHERE id = $id`,
  settings_group: 'SELECT $id',
  admin_user: 'SELECT username FROM admin_users WHERE id = $id',
  admin_session: 'SELECT u.username FROM admin_sessions s JOIN admin_users u ON u.id = s.user_id WHERE s.id = $id',
  gitops_commit: 'SELECT repo FROM gitops_acceptances WHERE commit_sha = $id ORDER BY id DESC LIMIT 1',
};

/**
 * SQL naming an audit target from SQL expressions of its type and id: a domain's apex, a record's
 * type and full name, an origin's host, a rule's name, a purge's scope and value, a settings
 * group, a user's name, an accepted commit's repository; null for other types or a row that is gone.
 */
export function targetNameSql(type: string, id: string): string {
  const cases = Object.entries(NAMERS).map(([target, query]) => `WHEN '${target}' THEN (${query.replaceAll('$id', id)})`);
  return `CASE ${type} ${cases.join(' ')} END`;
}

/** SQL naming the apex of a domain id expression. */
export function domainNameSql(domainId: string): string {
  return `(SELECT domain FROM domains WHERE id = ${domainId})`;
}

const NAMES_NOW = `SELECT ${targetNameSql('$1::text', '$2::text')} AS target_name, ${domainNameSql('$3::text')} AS domain_name`;

/** The names of a target and its domain as they stand now: what a delete must read before the rows go. */
export async function namesNow(db: Db, target: { targetType: string; targetId?: string; domainId?: string }): Promise<{ targetName?: string; domainName?: string }> {
  const { rows } = await sqlOf(db).query<{ target_name: string | null; domain_name: string | null }>(NAMES_NOW, [target.targetType, target.targetId ?? null, target.domainId ?? null]);
  return { targetName: rows[0].target_name ?? undefined, domainName: rows[0].domain_name ?? undefined };
}

import type { Db } from '../db/client.js';
import { sqlOf } from '../db/sql.js';
import { withoutUrlCredentials } from '../shared/url-credentials.js';
import { domainNameSql, targetNameSql } from '../features/audit/target-names.js';
import type { Actor } from './actor.js';
import type { GitopsSource } from './gitops-source.js';

const SECRET_FIELD = /password|secret|token|private_key/i;

/**
 * A copy of a body fit for the audit log or an operator's eyes: the value of every
 * secret-looking field is replaced by "[redacted]" (an unset one stays null), and every
 * URL loses the credentials it carries (`https://user:token@host` → `https://host`).
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return withoutUrlCredentials(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, SECRET_FIELD.test(key) && inner != null ? '[redacted]' : redactSecrets(inner)]),
    );
  }
  return value;
}

export type AuditEntry = {
  actor: Actor;
  action: string;
  targetType: string;
  targetId?: string;
  /** The target's name when it cannot be read at write time (a delete reads it before the row goes). */
  targetName?: string;
  domainId?: string;
  domainName?: string;
  requestId?: string;
  /** The GitOps repository and commit whose apply made the change. */
  gitops?: GitopsSource;
  detail?: unknown;
};

function rowOf(entry: AuditEntry) {
  return {
    actor: entry.actor.name,
    actor_type: entry.actor.type,
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId ?? null,
    target_name: entry.targetName ?? null,
    domain_id: entry.domainId ?? null,
    domain_name: entry.domainName ?? null,
    request_id: entry.requestId ?? null,
    gitops_repo: entry.gitops?.repo ?? null,
    gitops_commit: entry.gitops?.commit ?? null,
    detail: (entry.detail ?? {}) as object,
  };
}

/** Writes one audit event (inside the caller's transaction when given one). */
export async function writeAudit(db: Db, entry: AuditEntry): Promise<void> {
  await writeAudits(db, [entry]);
}

// One row per array element, in order (SQL on Prisma's connection: src/db/sql.ts). Target and
// domain names not given are read in the same statement, from the rows as the transaction sees them.
const INSERT_AUDITS = `INSERT INTO audit_events (actor, actor_type, action, target_type, target_id, target_name, domain_id, domain_name, request_id, gitops_repo, gitops_commit, detail)
  SELECT actor, actor_type, action, target_type, target_id, COALESCE(target_name, ${targetNameSql('entry.target_type', 'entry.target_id')}),
    domain_id, COALESCE(domain_name, ${domainNameSql('entry.domain_id')}), request_id, gitops_repo, gitops_commit, detail::jsonb
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
    WITH ORDINALITY AS entry(actor, actor_type, action, target_type, target_id, target_name, domain_id, domain_name, request_id, gitops_repo, gitops_commit, detail, position)
  ORDER BY position`;

/** Writes audit events in one statement, in order (a batch's writes, or one request's). */
export async function writeAudits(db: Db, entries: AuditEntry[]): Promise<void> {
  if (!entries.length) return;
  const rows = entries.map(rowOf);
  const column = <K extends keyof ReturnType<typeof rowOf>>(key: K) => rows.map((row) => row[key]);
  const details = rows.map((row) => JSON.stringify(row.detail));
  const columns = (['actor', 'actor_type', 'action', 'target_type', 'target_id', 'target_name', 'domain_id', 'domain_name', 'request_id', 'gitops_repo', 'gitops_commit'] as const).map(column);
  await sqlOf(db).query(INSERT_AUDITS, [...columns, details]);
}

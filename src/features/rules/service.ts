import type { Db } from '../../db/client.js';
import { insertNewRows } from '../../db/insert-rows.js';
import { sqlOf } from '../../db/sql.js';
import { lockDomainWrites } from '../../db/write-lock.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { createMany } from '../../http/create-many.js';
import { onlyItem } from '../../http/route.js';
import { unixSeconds } from '../../http/timestamps.js';
import { matchProblems } from '../../shared/rules/match-problems.js';
import type { Match } from '../../shared/rules/types.js';
import { assertDomainExists } from '../domains/service.js';
import type { RuleKind, RuleRecord } from './kinds.js';

type Delegate = {
  findMany: (args: object) => Promise<RuleRecord[]>;
  findFirst: (args: object) => Promise<RuleRecord | null>;
  create: (args: object) => Promise<RuleRecord>;
  update: (args: object) => Promise<RuleRecord>;
  delete: (args: object) => Promise<RuleRecord>;
  deleteMany: (args: object) => Promise<{ count: number }>;
};

const READ_ONLY = ['id', 'domain_id', 'created_at', 'updated_at', 'legacy'];

function delegate(db: Db, kind: RuleKind): Delegate {
  return (db as unknown as Record<string, Delegate>)[kind.model];
}

/** The API shape of a rule: its columns with timestamps as unix seconds (internal flags left out). */
export function serializeRule(row: RuleRecord) {
  const { legacy: _legacy, ...rest } = row;
  return { ...rest, created_at: unixSeconds(row.created_at as Date), updated_at: unixSeconds(row.updated_at as Date) };
}

/** Throws ValidationError for the first write-time problem of a match (regex safety, countries, CIDRs). */
export function assertSoundMatch(match: unknown, prefix = 'match'): void {
  const [problem] = matchProblems((match ?? {}) as Match, prefix);
  if (problem) throw new ValidationError(problem.field, problem.detail);
}

async function assertNameFree(db: Db, kind: RuleKind, domainId: string, name: string, exceptId?: string): Promise<void> {
  const twin = await delegate(db, kind).findFirst({ where: { domain_id: domainId, name, ...(exceptId ? { id: { not: exceptId } } : {}) } });
  if (twin) throw duplicateName(kind, name);
}

/** Serializes writes of the domain's rules of one kind, so name checks see every committed rule (call inside the transaction). */
export async function lockRuleWrites(db: Db, kind: RuleKind, domainId: string): Promise<void> {
  await lockDomainWrites(db, domainId, `rules:${kind.path}`);
}

/** A page of a domain's rules of one kind, in evaluation order (priority, then name). */
export async function listRules(db: Db, kind: RuleKind, domainId: string, paging?: Paging) {
  await assertDomainExists(db, domainId);
  const rows = await delegate(db, kind).findMany({
    where: { domain_id: domainId },
    orderBy: [{ priority: 'asc' }, { name: 'asc' }, { id: 'asc' }],
    ...(paging ? { skip: paging.offset, take: paging.limit } : {}),
  });
  return rows.map(serializeRule);
}

/** One rule of the domain, or NotFoundError. */
export async function findRule(db: Db, kind: RuleKind, domainId: string, ruleId: string): Promise<RuleRecord> {
  await assertDomainExists(db, domainId);
  const row = await delegate(db, kind).findFirst({ where: { id: ruleId, domain_id: domainId } });
  if (!row) throw new NotFoundError(kind.noun.replace('_', ' '), ruleId);
  return row;
}

function duplicateName(kind: RuleKind, name: string): ValidationError {
  return new ValidationError('name', `a ${kind.noun.replace('_', ' ')} named ${JSON.stringify(name)} already exists for this domain`, 'duplicate name');
}

// The row a checked rule is stored as.
function checkedRule(kind: RuleKind, domainId: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  assertSoundMatch(input.match);
  const normalised = kind.check({ ...input, id: '', domain_id: domainId } as RuleRecord);
  return { match: {}, ...input, ...normalised, ...extra, domain_id: domainId };
}

/** Creates a rule after the match and the kind's own checks; names are unique per domain and kind. */
export async function createRule(db: Db, kind: RuleKind, domainId: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return onlyItem(createRules(db, kind, domainId, [input], extra));
}

/**
 * Creates several rules of one kind as createRule would one after the other, in one insert that
 * also finds names already taken. A refused rule is thrown as an ItemError with its index.
 */
export async function createRules(db: Db, kind: RuleKind, domainId: string, inputs: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  await lockRuleWrites(db, kind, domainId);
  await assertDomainExists(db, domainId);
  const sql = sqlOf(db);
  const rows = await createMany(
    {
      check: (input) => checkedRule(kind, domainId, input, extra),
      keyOf: (row) => String(row.name),
      duplicate: (row) => duplicateName(kind, String(row.name)),
      storedKeys: async (candidates) => {
        const { rows: named } = await sql.query<{ name: string }>(`SELECT name FROM ${kind.table} WHERE domain_id = $1 AND name = ANY($2::text[])`, [domainId, candidates.map((row) => row.name)]);
        return new Set(named.map((row) => row.name));
      },
      insertNew: (candidates) => insertNewRows(sql, kind.table, candidates),
    },
    inputs,
  );
  return rows.map((row) => serializeRule(row as RuleRecord));
}

/** Merges the patch into the rule and re-runs every check on the result. */
export async function updateRule(db: Db, kind: RuleKind, domainId: string, ruleId: string, patch: Record<string, unknown>) {
  await lockRuleWrites(db, kind, domainId);
  const current = await findRule(db, kind, domainId, ruleId);
  if (patch.match !== undefined) assertSoundMatch(patch.match);
  const merged = { ...current, ...patch } as RuleRecord;
  const normalised = kind.check(merged);
  if (patch.name !== undefined && patch.name !== current.name) await assertNameFree(db, kind, domainId, String(patch.name), ruleId);
  const data = Object.fromEntries(Object.entries({ ...patch, ...normalised }).filter(([key]) => !READ_ONLY.includes(key)));
  const row = await delegate(db, kind).update({ where: { id: ruleId }, data });
  return serializeRule(row);
}

/** Deletes one rule. */
export async function deleteRule(db: Db, kind: RuleKind, domainId: string, ruleId: string): Promise<void> {
  await findRule(db, kind, domainId, ruleId);
  await delegate(db, kind).delete({ where: { id: ruleId } });
}

/** Every rule of the kind for the domain, unpaged, for evaluation and export. */
export async function allRules(db: Db, kind: RuleKind, domainId: string): Promise<RuleRecord[]> {
  await assertDomainExists(db, domainId);
  return delegate(db, kind).findMany({ where: { domain_id: domainId }, orderBy: [{ priority: 'asc' }, { name: 'asc' }, { id: 'asc' }] });
}

/** Inserts already-validated rules, first deleting the domain's rules of the kind when `replace` (bulk import). */
export async function insertRules(db: Db, kind: RuleKind, domainId: string, inputs: Record<string, unknown>[], replace: boolean): Promise<void> {
  if (replace) await delegate(db, kind).deleteMany({ where: { domain_id: domainId } });
  for (const input of inputs) await delegate(db, kind).create({ data: { match: {}, ...input, domain_id: domainId } });
}

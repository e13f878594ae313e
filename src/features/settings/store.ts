import type { Db } from '../../db/client.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { coerceSetting, GROUPS, SETTINGS, type SettingDefinition, type SettingsGroup } from './registry.js';

export type SettingsProblem = { field: string; detail: string };

function definitionsOf(group: string): Record<string, SettingDefinition> {
  if (!(GROUPS as string[]).includes(group)) throw new NotFoundError('settings group', group);
  return SETTINGS[group as SettingsGroup];
}

/** The values of one group: stored values over defaults. */
export async function groupValues(db: Db, group: string): Promise<Record<string, unknown>> {
  const definitions = definitionsOf(group);
  const rows = await db.setting.findMany({ where: { group } });
  const stored = new Map(rows.map((row) => [row.key, row.value]));
  return Object.fromEntries(Object.entries(definitions).map(([key, definition]) => [key, stored.has(key) ? stored.get(key) : definition.default]));
}

/** Every group with its values. */
export async function allSettings(db: Db): Promise<Record<string, Record<string, unknown>>> {
  const entries = await Promise.all(GROUPS.map(async (group) => [group, await groupValues(db, group)] as const));
  return Object.fromEntries(entries);
}

/** Every problem of a partial update of one group (unknown keys, bad values); null values mean "reset to default". */
export function groupProblems(group: string, values: Record<string, unknown>): SettingsProblem[] {
  const definitions = definitionsOf(group);
  return Object.entries(values).flatMap(([key, value]) => {
    const definition = definitions[key];
    if (!definition) return [{ field: `${group}.${key}`, detail: `unknown setting; ${group} has ${Object.keys(definitions).join(', ')}` }];
    if (value === null) return [];
    const result = coerceSetting(definition, value);
    return 'problem' in result ? [{ field: `${group}.${key}`, detail: `${key} ${result.problem}` }] : [];
  });
}

/** Every problem of a `{group: {key: value}}` document (unknown groups included), for POST /settings/validate. */
export function documentProblems(document: Record<string, unknown>): SettingsProblem[] {
  return Object.entries(document).flatMap(([group, values]) => {
    if (!(GROUPS as string[]).includes(group)) return [{ field: group, detail: `unknown settings group; groups are ${GROUPS.join(', ')}` }];
    if (!values || typeof values !== 'object' || Array.isArray(values)) return [{ field: group, detail: 'must be an object of settings' }];
    return groupProblems(group, values as Record<string, unknown>);
  });
}

/** Throws one 422 listing every problem (field of the first, all of them in `errors`). */
export function assertNoProblems(problems: SettingsProblem[]): void {
  if (problems.length) throw new ValidationError(problems[0].field, problems.map((problem) => `${problem.field}: ${problem.detail}`).join('; '), 'invalid settings', { errors: problems });
}

/** Applies a partial update of one group (null resets a key to its default) and returns the group's values. */
export async function updateGroup(db: Db, group: string, values: Record<string, unknown>, actor: string): Promise<Record<string, unknown>> {
  const definitions = definitionsOf(group);
  assertNoProblems(groupProblems(group, values));
  for (const [key, raw] of Object.entries(values)) {
    if (raw === null) {
      await db.setting.deleteMany({ where: { group, key } });
      continue;
    }
    const { value } = coerceSetting(definitions[key], raw) as { value: unknown };
    await db.setting.upsert({
      where: { group_key: { group, key } },
      create: { group, key, value: value as object, updated_by: actor },
      update: { value: value as object, updated_by: actor },
    });
  }
  return groupValues(db, group);
}

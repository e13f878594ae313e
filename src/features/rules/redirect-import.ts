import { parse } from 'csv-parse/sync';
import type { ValidateFunction } from 'ajv';
import type { Db } from '../../db/client.js';
import { HttpError, ValidationError } from '../../http/errors.js';
import { schemaProblem } from '../../http/validation.js';
import type { Pattern } from '../../shared/rules/types.js';
import { ruleKind } from './kinds.js';
import { allRules, assertSoundMatch, insertRules, lockRuleWrites, serializeRule } from './service.js';

export type ImportRequest = { format: 'csv' | 'json'; mode: 'append' | 'replace'; csv?: string; rules?: Record<string, unknown>[] };
type LineError = { line: number; field?: string; detail: string };
type Line = { line: number; body: Record<string, unknown> };

const REDIRECTS = ruleKind('redirects');
const CSV_COLUMNS = ['source', 'target', 'status_code', 'preserve_query', 'preserve_path', 'name', 'priority'];

function sourcePattern(source: string): { hosts?: Pattern[]; paths: Pattern[] } {
  if (/^https?:\/\//i.test(source)) {
    const url = new URL(source);
    return { hosts: [{ kind: 'exact', value: url.hostname }], paths: [{ kind: url.pathname.includes('*') ? 'wildcard' : 'exact', value: decodeURI(url.pathname) }] };
  }
  if (source.startsWith('^')) return { paths: [{ kind: 'regex', value: source }] };
  return { paths: [{ kind: source.includes('*') ? 'wildcard' : 'exact', value: source }] };
}

function csvBoolean(value: string | undefined): boolean | undefined | string {
  if (value === undefined || value === '') return undefined;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  return value;
}

function csvNumber(value: string | undefined): number | undefined | string {
  if (value === undefined || value === '') return undefined;
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

function csvLines(csv: string): Line[] {
  let records: Record<string, string>[];
  try {
    records = parse(csv, { columns: (header: string[]) => header.map((name) => name.trim().toLowerCase()), skip_empty_lines: true, trim: true });
  } catch (error) {
    throw new ValidationError('csv', `the CSV cannot be read: ${(error as Error).message}`);
  }
  const unknown = Object.keys(records[0] ?? {}).filter((column) => !CSV_COLUMNS.includes(column));
  if (unknown.length) throw new ValidationError('csv', `unknown CSV column(s) ${unknown.join(', ')}; use ${CSV_COLUMNS.join(', ')}`);
  return records.map((record, index) => {
    const source = record.source ?? '';
    const body: Record<string, unknown> = { name: record.name || `redirect ${source}`.slice(0, 200), target: record.target };
    try {
      body.match = sourcePattern(source);
    } catch {
      body.match = { paths: [{ kind: 'exact', value: source }] };
    }
    const extras = { status_code: csvNumber(record.status_code), preserve_query: csvBoolean(record.preserve_query), preserve_path: csvBoolean(record.preserve_path), priority: csvNumber(record.priority) };
    for (const [key, value] of Object.entries(extras)) if (value !== undefined) body[key] = value;
    return { line: index + 2, body };
  });
}

function lineProblem(validate: ValidateFunction, body: Record<string, unknown>): Omit<LineError, 'line'> | undefined {
  const schema = schemaProblem(validate, body, 'rule');
  if (schema) return schema;
  try {
    assertSoundMatch(body.match);
    REDIRECTS.check(body as never);
  } catch (error) {
    if (error instanceof HttpError) return { field: error.field, detail: error.detail ?? error.message };
    throw error;
  }
  return undefined;
}

/**
 * Imports redirects all or nothing: every line is validated (schema, match,
 * target, duplicate names within the file and, when appending, against existing
 * rules) before anything is written; any error rejects the import with all of them.
 */
export async function importRedirects(db: Db, domainId: string, request: ImportRequest, validate: ValidateFunction) {
  if (request.format === 'csv' && request.csv === undefined) throw new ValidationError('csv', 'csv is required when format is csv');
  if (request.format === 'json' && request.rules === undefined) throw new ValidationError('rules', 'rules is required when format is json');
  const lines = request.format === 'csv' ? csvLines(request.csv!) : request.rules!.map((body, index) => ({ line: index + 1, body: { ...body } }));
  await lockRuleWrites(db, REDIRECTS, domainId);
  const existing = await allRules(db, REDIRECTS, domainId);
  const seen = new Set(request.mode === 'append' ? existing.map((rule) => rule.name) : []);
  const errors: LineError[] = [];
  for (const { line, body } of lines) {
    const problem = lineProblem(validate, body);
    if (problem) errors.push({ line, ...problem });
    else if (seen.has(String(body.name))) errors.push({ line, field: 'name', detail: `the name ${JSON.stringify(body.name)} is used twice` });
    seen.add(String(body.name));
  }
  if (errors.length) {
    throw new ValidationError(errors[0].field, `${errors.length} of ${lines.length} line(s) are invalid; nothing was imported`, 'import rejected', { errors });
  }
  await insertRules(db, REDIRECTS, domainId, lines.map((line) => line.body), request.mode === 'replace');
  const total = request.mode === 'replace' ? lines.length : existing.length + lines.length;
  return { imported: lines.length, mode: request.mode, total };
}

function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvSource(match: { hosts?: Pattern[]; paths?: Pattern[] }): string | undefined {
  if (match.paths?.length !== 1 || (match.hosts?.length ?? 0) > 1) return undefined;
  const path = match.paths[0];
  const host = match.hosts?.[0];
  if (host && host.kind !== 'exact') return undefined;
  if (path.kind === 'regex') return host ? undefined : path.value;
  return host ? `https://${host.value}${path.value}` : path.value;
}

/** Every redirect of the domain as JSON create requests, or as CSV when each fits the CSV columns. */
export async function exportRedirects(db: Db, domainId: string, format: 'json' | 'csv') {
  const rules = (await allRules(db, REDIRECTS, domainId)).map(serializeRule);
  const bodies = rules.map(({ id: _id, domain_id: _domain, created_at: _created, updated_at: _updated, ...body }) => body as Record<string, unknown>);
  if (format === 'json') return { format, count: bodies.length, rules: bodies };
  const rows = bodies.map((body) => {
    const source = csvSource(body.match as never);
    if (source === undefined || body.enabled === false) throw new ValidationError('format', `redirect ${JSON.stringify(body.name)} has conditions CSV cannot express; export as json`);
    return [source, body.target, body.status_code, body.preserve_query, body.preserve_path, body.name, body.priority].map(csvCell).join(',');
  });
  return { format, count: rows.length, csv: [CSV_COLUMNS.join(','), ...rows].join('\n') + '\n' };
}

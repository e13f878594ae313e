import { randomUUID } from 'node:crypto';
import type { Sql } from './sql.js';

export type Row = Record<string, unknown>;

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function quoted(identifier: string): string {
  if (!IDENTIFIER.test(identifier)) throw new Error(`${JSON.stringify(identifier)} is not a column or table name`);
  return `"${identifier}"`;
}

// The row with an id of its own (ids are text UUIDs, the same as the database's default) and without undefined values.
function withId(row: Row): Row {
  const defined = Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
  return { id: randomUUID(), ...defined };
}

// Rows that name the same columns, in first-seen order: each group is one INSERT, so a column a row leaves out takes its default.
function byColumns(rows: Row[]): Row[][] {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = Object.keys(row).sort().join(',');
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()];
}

async function insert(sql: Sql, table: string, rows: Row[], onConflict: string): Promise<(Row | undefined)[]> {
  const stored = new Map<string, Row>();
  const prepared = rows.map(withId);
  for (const group of byColumns(prepared)) {
    const columns = Object.keys(group[0]).map(quoted).join(', ');
    const text = `INSERT INTO ${quoted(table)} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${quoted(table)}, $1::jsonb)${onConflict} RETURNING *`;
    const { rows: inserted } = await sql.query<Row>(text, [JSON.stringify(group)]);
    for (const row of inserted) stored.set(row.id as string, row);
  }
  return prepared.map((row) => stored.get(row.id as string));
}

/**
 * Inserts `rows` into `table` in one statement per set of columns and returns them as stored
 * (every column, database defaults filled in), in the order given. The rows travel as one JSON
 * parameter that jsonb_populate_recordset turns into the table's row type, so each value takes its
 * column's type (jsonb, text[], enums, timestamps from ISO strings) and no parameter limit applies.
 */
export async function insertRows(sql: Sql, table: string, rows: Row[]): Promise<Row[]> {
  return (await insert(sql, table, rows, '')) as Row[];
}

/**
 * insertRows, leaving out each row whose unique key a stored row already has (ON CONFLICT DO
 * NOTHING): its place in the answer is undefined. A duplicate check and the insert in one statement.
 */
export async function insertNewRows(sql: Sql, table: string, rows: Row[]): Promise<(Row | undefined)[]> {
  return insert(sql, table, rows, ' ON CONFLICT DO NOTHING');
}

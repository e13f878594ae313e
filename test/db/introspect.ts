import pg from 'pg';

/** A comparable description of a database's schema: columns, indexes, constraints and enum types (Prisma's own table excluded). */
export async function describeSchema(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query(`
      SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, character_maximum_length, datetime_precision
      FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
      ORDER BY table_name, column_name`);
    const indexes = await client.query(`
      SELECT tablename, indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'
      ORDER BY tablename, indexname`);
    const constraints = await client.query(`
      SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
      FROM pg_constraint
      WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text <> '"_prisma_migrations"' AND conrelid::regclass::text <> '_prisma_migrations'
      ORDER BY 1, 2`);
    const enums = await client.query(`
      SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder) AS labels
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
      WHERE t.typnamespace = 'public'::regnamespace
      GROUP BY t.typname ORDER BY t.typname`);
    return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows, enums: enums.rows };
  } finally {
    await client.end();
  }
}

/**
 * The embedded PostgreSQL cannot start, for a reason the operator can act on. Its
 * message is one line saying what went wrong and what to do (the CLI prints it as is).
 */
export class EmbeddedPostgresError extends Error {
  constructor(problem: string, remedy = 'run as a non-root user, or set DATABASE_URL to a PostgreSQL server') {
    super(`embedded PostgreSQL: ${oneLine(problem)}; ${remedy}`);
  }
}

/** Collapses multi-line tool output (initdb, postgres) into one line. */
export function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' | ');
}

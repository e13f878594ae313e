/** Unix seconds of a date (API timestamps are integers). */
export function unixSeconds(date: Date): number;
export function unixSeconds(date: Date | null | undefined): number | null;
export function unixSeconds(date: Date | null | undefined): number | null {
  return date ? Math.floor(date.getTime() / 1000) : null;
}

/** The last second (9999-12-31T23:59:59Z) that Prisma and PostgreSQL both store: later timestamps are refused as input. */
export const MAX_UNIX_SECONDS = 253402300799;

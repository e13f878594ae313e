import type pg from 'pg';

export type PingResult = { ok: true; ms: number } | { ok: false; ms: number; error: string };

/** Runs `SELECT 1` with a deadline; never throws. */
export async function pingDatabase(pool: pg.Pool, timeoutMs = 2000): Promise<PingResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([pool.query('SELECT 1'), deadline]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    const message = (error as Error).message || (error as { code?: string }).code || 'unreachable';
    return { ok: false, ms: Math.round(performance.now() - started), error: message };
  } finally {
    clearTimeout(timer);
  }
}

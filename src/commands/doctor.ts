import type { CheckResult, CheckStatus } from '../doctor/check-result.js';
import { runChecks } from '../doctor/doctor.js';

export type DoctorCommandOptions = { json?: boolean; timeout?: string };

const LABELS: Record<CheckStatus, string> = { ok: 'ok', warn: 'warn', fail: 'FAIL', skip: 'skip' };
const DEFAULT_TIMEOUT_SECONDS = 10;

/** One line per result: status, check, what was found and, after a colon, what to do. */
export function formatLines(results: CheckResult[]): string {
  const width = Math.max(...results.map((result) => result.check.length));
  const lines = results.map((result) => `${LABELS[result.status].padEnd(6)}${result.check.padEnd(width + 2)}${result.message}${result.fix ? `: ${result.fix}` : ''}`);
  const counts = (['ok', 'warn', 'fail', 'skip'] as const).map((status) => `${results.filter((result) => result.status === status).length} ${LABELS[status]}`);
  return `${lines.join('\n')}\n${counts.join(', ')}\n`;
}

function timeoutMs(option: string | undefined): number {
  const seconds = Number(option ?? DEFAULT_TIMEOUT_SECONDS);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 300) throw new Error(`--timeout must be a number of seconds between 0 and 300, not ${JSON.stringify(option)}`);
  return seconds * 1000;
}

/**
 * `cdn doctor [--json] [--timeout S]`: checks this environment as an operator would before going live
 * and exits 1 when any check failed, 0 otherwise (warnings and skipped checks included). It exits at
 * once after printing, so nothing a check left waiting (a hung connection) can hold it.
 */
export async function runDoctor(options: DoctorCommandOptions): Promise<void> {
  const results = await runChecks(process.env, { timeoutMs: timeoutMs(options.timeout) });
  process.stdout.write(options.json ? `${JSON.stringify(results, null, 2)}\n` : formatLines(results));
  process.exit(results.some((result) => result.status === 'fail') ? 1 : 0);
}

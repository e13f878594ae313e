// Recognises "the database is not there" among the shapes pg, the Prisma
// adapter and the Prisma client give it, so callers can answer 503.

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
const MESSAGE_HINTS = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection refused/i,
  /server closed the connection/i,
  /terminating connection/i,
  /database system is (starting up|shutting down|in recovery)/i,
  /cannot use a pool after calling end/i,
  /ECONNREFUSED|ECONNRESET/,
];

function isUnavailableSqlState(code: string): boolean {
  // Class 08 = connection exception; 57P0x = admin/crash shutdown, cannot connect now.
  return code.startsWith('08') || /^57P0[1-3]$/.test(code);
}

function* causes(error: unknown): Generator<Record<string, unknown>> {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    yield current as Record<string, unknown>;
    const node = current as { cause?: unknown; errors?: unknown[] };
    if (Array.isArray(node.errors)) for (const inner of node.errors) yield* causes(inner);
    current = node.cause;
  }
}

/** True when `error` (or anything it wraps) says the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const node of causes(error)) {
    const code = typeof node.code === 'string' ? node.code : undefined;
    if (code && (NETWORK_CODES.has(code) || PRISMA_UNREACHABLE.has(code) || isUnavailableSqlState(code))) return true;
    const message = typeof node.message === 'string' ? node.message : '';
    if (MESSAGE_HINTS.some((hint) => hint.test(message))) return true;
  }
  return false;
}

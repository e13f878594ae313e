// Recognises what the database said among the shapes pg, the Prisma adapter and the
// Prisma client give it: "not there" (callers answer 503) and "refused a value" (422).

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// P2037: too many database connections opened.
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1017', 'P2024', 'P2037']);
// P2000: value too long for its column; P2020: value out of range for its type.
const PRISMA_DATA_EXCEPTIONS = new Set(['P2000', 'P2020']);
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
const SQLSTATE = /^[0-9A-Z]{5}$/;

function isUnavailableSqlState(code: string): boolean {
  // Class 08 = connection exception; 57P0x = admin/crash shutdown, cannot connect now;
  // 53300 = too many connections (the server refuses new sessions until others end).
  return code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '53300';
}

// Every error object wrapped in `error`: causes, aggregated errors, and the driver error Prisma keeps in its meta.
function* causes(error: unknown, seen = new Set<unknown>()): Generator<Record<string, unknown>> {
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    yield current as Record<string, unknown>;
    const node = current as { cause?: unknown; errors?: unknown[]; meta?: { driverAdapterError?: unknown } };
    if (Array.isArray(node.errors)) for (const inner of node.errors) yield* causes(inner, seen);
    if (node.meta?.driverAdapterError) yield* causes(node.meta.driverAdapterError, seen);
    current = node.cause;
  }
}

// The error codes a node carries: pg's `code`, the adapter's `originalCode` (the SQLSTATE).
function codesOf(node: Record<string, unknown>): string[] {
  return [node.code, node.originalCode].filter((code): code is string => typeof code === 'string');
}

/** True when `error` (or anything it wraps) says the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const node of causes(error)) {
    for (const code of codesOf(node)) {
      if (NETWORK_CODES.has(code) || PRISMA_UNREACHABLE.has(code) || (SQLSTATE.test(code) && isUnavailableSqlState(code))) return true;
    }
    const message = typeof node.message === 'string' ? node.message : '';
    if (MESSAGE_HINTS.some((hint) => hint.test(message))) return true;
  }
  return false;
}

// Prisma's own refusals of a date it cannot send: an Invalid Date, or a year beyond 9999.
const PRISMA_DATE_REFUSALS = [/Provided Date object is invalid/, /Could not convert argument value .*"DateTime"/];

// The data exceptions a caller's value can cause (NUL in text, a bad Unicode escape in jsonb,
// numbers, dates and strings out of range or format). Other class-22 codes, such as a failed cast
// (22P02), come from a query the code built wrongly: those stay 500 and are logged with their stack.
const VALUE_REFUSALS = new Set(['22021', '22P05', '22003', '22008', '22007', '22001']);

/**
 * Why the database (or Prisma on its way there) refused a value of the request, or undefined when
 * `error` is something else: a data exception of VALUE_REFUSALS, Prisma's P2000/P2020, or a date
 * Prisma cannot convert.
 */
export function refusedValueReason(error: unknown): string | undefined {
  for (const node of causes(error)) {
    for (const code of codesOf(node)) {
      if (PRISMA_DATA_EXCEPTIONS.has(code) || VALUE_REFUSALS.has(code)) return `database code ${code}`;
    }
    const message = typeof node.message === 'string' ? node.message : '';
    if (PRISMA_DATE_REFUSALS.some((refusal) => refusal.test(message))) return 'a date out of range';
  }
  return undefined;
}

// pg's detail of a unique violation: "Key (domain_id, name)=(…) already exists."
const UNIQUE_KEY_DETAIL = /^Key \(([^)]*)\)=/;

/**
 * When `error` is a unique violation (23505 from pg, P2002 from Prisma), the field it names (the
 * key's last column, as Prisma reports its target); undefined when it is something else.
 */
export function uniqueViolation(error: unknown): { field?: string } | undefined {
  for (const node of causes(error)) {
    const codes = codesOf(node);
    if (codes.includes('P2002')) {
      const target = (node.meta as { target?: unknown } | undefined)?.target;
      return { field: Array.isArray(target) ? String(target.at(-1)) : undefined };
    }
    if (codes.includes('23505')) {
      const columns = typeof node.detail === 'string' ? UNIQUE_KEY_DETAIL.exec(node.detail)?.[1] : undefined;
      return { field: columns?.split(',').at(-1)?.trim() };
    }
  }
  return undefined;
}

// 40P01 deadlock, 40001 serialization failure; Prisma's P2034 says the same.
const CONFLICT_CODES = new Set(['40P01', '40001', 'P2034']);

/** True when the transaction lost a deadlock or a serialization conflict: retrying it whole may succeed. */
export function isTransactionConflict(error: unknown): boolean {
  for (const node of causes(error)) for (const code of codesOf(node)) if (CONFLICT_CODES.has(code)) return true;
  return false;
}

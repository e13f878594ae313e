import type { AppDeps } from './app.js';
import { auditEntryOf, runAuditedStep } from './app.js';
import { writeAudits, type AuditEntry } from './audit-writer.js';
import { assertAllowed } from './auth.js';
import type { Db } from '../db/client.js';
import { bumpReadVersions, deferReadVersions } from '../db/read-versions.js';
import { markConfigDirty } from '../publish/dirty.js';
import { isTransactionConflict } from './database-errors.js';
import { toHttpError } from './error-handler.js';
import { HttpError, ValidationError } from './errors.js';
import { CONFIG_CHANGE_HEADER, ItemError, Reply, type Method, type Route, type RouteContext } from './route.js';
import { routeMatcher } from './route-matcher.js';
import { assertStorableParameters } from './storable-input.js';
import { assertValid, validatorFor } from './validation.js';
import { transaction } from '../db/sql.js';

type Operation = { ref?: string; method: string; path: string; body?: Record<string, unknown> };
type OperationResult = { status: number; body: unknown };

const BATCH_TRANSACTION = { timeout: 120000, maxWait: 10000 };
const CONFLICT_ATTEMPTS = 3;
const REFERENCE = /@\{([A-Za-z0-9_-]{1,64})\}/g;

/** An operation's path names no batchable write, or a ref no earlier operation set. */
class PathError extends ValidationError {
  constructor(detail: string) {
    super('path', detail);
  }
}

// A batch that lost a deadlock was rolled back whole, so it is run again (with a little jitter) before giving up.
async function withConflictRetries<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || !isTransactionConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * attempt));
    }
  }
}

// Audit actions of writes that create, change or remove configuration. Actions whose cost is not
// a row's (purges, nameserver checks, usage recalculation, logout) are sent alone, unless the
// route opts in (activation: onboarding creates and activates thousands of domains).
const CONFIGURATION_WRITE = /\.(create|update|delete|replace|import)$/;

/**
 * Routes a batch may run: audited configuration writes of the control-plane API (or routes that
 * opt in with `batchable`) whose handler works on the request's transaction. Edge, public and
 * raw-body routes (webhooks) are not.
 */
function batchable(route: Route): boolean {
  if (!route.audit || !(CONFIGURATION_WRITE.test(route.audit.action) || route.batchable)) return false;
  return (route.auth === 'api' || route.auth === 'admin-session') && !route.rawBody && !route.ownTransaction;
}

// A path parameter the database could not store (NUL, bad Unicode) is a problem of the operation's path.
function assertStorablePath(params: Record<string, string>): void {
  try {
    assertStorableParameters(params, {});
  } catch (error) {
    throw error instanceof ValidationError ? new PathError(error.detail ?? error.message) : error;
  }
}

function resolvePath(operation: Operation, ids: Map<string, string>): string {
  return operation.path.replace(REFERENCE, (_, ref: string) => {
    const id = ids.get(ref);
    if (id === undefined) throw new PathError(`@{${ref}} names no earlier operation whose result has an id`);
    return encodeURIComponent(id);
  });
}

// The failing operation's own error, placed: its field under operations[i], its detail naming the operation.
function inOperation(index: number, operation: Operation, error: unknown): unknown {
  const http = toHttpError(error);
  if (http.status >= 500) return error;
  const field = error instanceof PathError ? `operations[${index}].path` : http.field === undefined ? `operations[${index}]` : `operations[${index}].body.${http.field}`;
  return new HttpError(http.status, http.message, field, `operation ${index} (${operation.method} ${operation.path}): ${http.detail ?? http.message}`, { ...http.extra, operation: index }, http.headers);
}

type Prepared = { route: Route; scoped: RouteContext };
type Step = { route: Route; scoped: RouteContext; result: unknown };

/**
 * POST /api/v1/batch: runs audited writes in order in one transaction, each through its
 * route's own validation, handler and audit event, and marks the published config dirty
 * once when any of them publishes. Consecutive creates on one path go through the route's
 * createMany when it has one (same checks, fewer queries). The first failure rolls everything
 * back and is answered with that operation's status and error, its field under `operations[i]`.
 */
export function batchRoute(deps: AppDeps, routes: Route[]): Route {
  const match = routeMatcher(routes.filter(batchable));

  // Resolves, authorizes and validates one operation, exactly as its own request would be.
  function prepare(context: RouteContext, operation: Operation, ids: Map<string, string>): Prepared {
    const path = resolvePath(operation, ids);
    const found = match(operation.method.toLowerCase() as Method, path);
    if (!found) throw new PathError(`${operation.method} ${path} is not a write this API can run in a batch`);
    const { route, params } = found;
    assertAllowed(context.actor, route.auth);
    assertStorablePath(params);
    const given = route.body ? (operation.body ?? (route.optionalBody ? {} : undefined)) : undefined;
    if (route.body && given === undefined) throw new ValidationError(undefined, 'this operation needs a body');
    // Validation fills defaults into a copy: the operation stays as sent, for the audit log and for a retried attempt.
    const sent = given;
    const body = given === undefined ? undefined : structuredClone(given);
    if (route.body) assertValid(validatorFor(deps.ajv, route.body), body);
    return { route, scoped: { ...context, params, query: {}, body, sent } };
  }

  // The operations from `start` that a createMany can take with it: the same method and path as written.
  function runLength(operations: Operation[], start: number, route: Route): number {
    if (!route.createMany) return 1;
    let end = start + 1;
    while (end < operations.length && operations[end].method === operations[start].method && operations[end].path === operations[start].path) end++;
    return end - start;
  }

  // Runs the operations from `start` (one, or a run through createMany); errors name their operation.
  async function runFrom(context: RouteContext, tx: Db, operations: Operation[], start: number, ids: Map<string, string>, audits: AuditEntry[]): Promise<Step[]> {
    const first = guarded(start, operations[start], () => prepare(context, operations[start], ids));
    const length = runLength(operations, start, first.route);
    if (length === 1) {
      const scoped = { ...first.scoped, db: tx };
      return [{ route: first.route, scoped, result: await guardedAsync(start, operations[start], () => runAuditedStep(first.route, scoped, tx, audits)) }];
    }
    // A refused operation is reported after the run's earlier operations are written: one of those may be refused first.
    const prepared = [first];
    let refusal: unknown;
    for (let index = start + 1; index < start + length && refusal === undefined; index++) {
      try {
        prepared.push(prepare(context, operations[index], ids));
      } catch (error) {
        refusal = inOperation(index, operations[index], error);
      }
    }
    const scoped = { ...first.scoped, db: tx };
    let results: unknown[];
    try {
      results = await first.route.createMany!(scoped, prepared.map((item) => item.scoped.body));
    } catch (error) {
      const index = error instanceof ItemError ? start + error.index : start;
      throw inOperation(index, operations[index], error instanceof ItemError ? error.error : error);
    }
    if (refusal !== undefined) throw refusal;
    return prepared.map((item, offset) => {
      audits.push(auditEntryOf(item.route, { ...item.scoped, db: tx }, results[offset]));
      return { route: item.route, scoped: { ...item.scoped, db: tx }, result: results[offset] };
    });
  }

  return {
    method: 'post',
    path: '/api/v1/batch',
    response: 'post-batch-answer',
    auth: 'api',
    body: 'batch-request',
    batchSizedBody: true,
    handler: async (context) => {
      const operations = (context.body as { operations: Operation[] }).operations;
      const committed: (() => void)[] = [];
      let change: bigint | undefined;
      const results = await withConflictRetries(() =>
        transaction(deps.prisma, async (tx) => {
          committed.length = 0;
          await deferReadVersions(tx);
          const ids = new Map<string, string>();
          const audits: AuditEntry[] = [];
          const done: OperationResult[] = [];
          let publishes = false;
          while (done.length < operations.length) {
            const start = done.length;
            for (const [offset, step] of (await runFrom(context, tx, operations, start, ids, audits)).entries()) {
              const { route, scoped, result } = step;
              if (route.afterCommit) committed.push(() => route.afterCommit!(scoped, result));
              const id = (result as { data?: { id?: unknown } } | undefined)?.data?.id;
              const ref = operations[start + offset].ref;
              if (ref && typeof id === 'string') ids.set(ref, id);
              publishes ||= route.publishes === true;
              done.push({ status: route.status ?? 200, body: result });
            }
          }
          await writeAudits(tx, audits);
          await bumpReadVersions(tx);
          change = publishes ? await markConfigDirty(tx, 'batch') : undefined;
          return done;
        }, BATCH_TRANSACTION),
      );
      for (const run of committed) run();
      return new Reply(200, { data: { results } }, change === undefined ? {} : { [CONFIG_CHANGE_HEADER]: String(change) });
    },
  };
}

function guarded<T>(index: number, operation: Operation, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw inOperation(index, operation, error);
  }
}

async function guardedAsync<T>(index: number, operation: Operation, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw inOperation(index, operation, error);
  }
}

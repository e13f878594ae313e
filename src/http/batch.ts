import type { AppDeps } from './app.js';
import { runAuditedStep } from './app.js';
import { writeAudits, type AuditEntry } from './audit-writer.js';
import { assertAllowed } from './auth.js';
import type { Db } from '../db/client.js';
import { bumpReadVersions, deferReadVersions } from '../db/read-versions.js';
import { markConfigDirty } from '../publish/dirty.js';
import { isTransactionConflict } from './database-errors.js';
import { toHttpError } from './error-handler.js';
import { HttpError, ValidationError } from './errors.js';
import type { Method, Route, RouteContext } from './route.js';
import { routeMatcher } from './route-matcher.js';
import { assertStorableParameters } from './storable-input.js';
import { assertValid, validatorFor } from './validation.js';

type Operation = { ref?: string; method: string; path: string; body?: Record<string, unknown> };
type OperationResult = { status: number; body: unknown };

const BATCH_TRANSACTION = { timeout: 120000, maxWait: 10000 };
const CONFLICT_ATTEMPTS = 3;

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
const REFERENCE = /@\{([A-Za-z0-9_-]{1,64})\}/g;

/**
 * Routes a batch may run: audited writes of the control-plane API whose handler works
 * on the request's transaction. Edge, public and raw-body routes (webhooks) are not.
 */
export function batchable(route: Route): boolean {
  return route.audit !== undefined && (route.auth === 'api' || route.auth === 'admin-session') && !route.rawBody && !route.ownTransaction;
}

function resolvePath(operation: Operation, ids: Map<string, string>): string {
  return operation.path.replace(REFERENCE, (_, ref: string) => {
    const id = ids.get(ref);
    if (id === undefined) throw new ValidationError('path', `@{${ref}} names no earlier operation whose result has an id`);
    return encodeURIComponent(id);
  });
}

// The failing operation's own error, placed: its field under operations[i], its detail naming the operation.
function inOperation(index: number, operation: Operation, error: unknown): unknown {
  const http = toHttpError(error);
  if (http.status >= 500) return error;
  const field = http.field === undefined ? `operations[${index}]` : http.field === 'path' ? `operations[${index}].path` : `operations[${index}].body.${http.field}`;
  return new HttpError(http.status, http.message, field, `operation ${index} (${operation.method} ${operation.path}): ${http.detail ?? http.message}`, { ...http.extra, operation: index }, http.headers);
}

/**
 * POST /api/v1/batch: runs audited writes in order in one transaction, each through its
 * route's own validation, handler and audit event, and marks the published config dirty
 * once when any of them publishes. The first failure rolls everything back and is answered
 * with that operation's status and error, its field under `operations[i]`.
 */
export function batchRoute(deps: AppDeps, routes: Route[]): Route {
  const match = routeMatcher(routes.filter(batchable));
  async function runOperation(context: RouteContext, tx: Db, operation: Operation, ids: Map<string, string>, audits: AuditEntry[]): Promise<{ route: Route; result: unknown; scoped: RouteContext }> {
    const path = resolvePath(operation, ids);
    const found = match(operation.method.toLowerCase() as Method, path);
    if (!found) throw new ValidationError('path', `${operation.method} ${path} is not a write this API can run in a batch`);
    const { route, params } = found;
    assertAllowed(context.actor, route.auth);
    assertStorableParameters(params, {});
    const body = route.body ? (operation.body ?? (route.optionalBody ? {} : undefined)) : undefined;
    if (route.body && body === undefined) throw new ValidationError(undefined, 'this operation needs a body');
    const sent = body === undefined ? undefined : structuredClone(body);
    if (route.body) assertValid(validatorFor(deps.ajv, route.body), body);
    const scoped = { ...context, params, query: {}, body, sent };
    return { route, result: await runAuditedStep(route, scoped, tx, audits), scoped };
  }
  return {
    method: 'post',
    path: '/api/v1/batch',
    auth: 'api',
    body: 'batch-request',
    handler: async (context) => {
      const operations = (context.body as { operations: Operation[] }).operations;
      const committed: (() => void)[] = [];
      const results = await withConflictRetries(() => deps.prisma.$transaction(async (transaction) => {
        const tx = transaction as unknown as Db;
        committed.length = 0;
        await deferReadVersions(tx);
        const ids = new Map<string, string>();
        const audits: AuditEntry[] = [];
        const done: OperationResult[] = [];
        let publishes = false;
        for (const [index, operation] of operations.entries()) {
          try {
            const { route, result, scoped } = await runOperation(context, tx, operation, ids, audits);
            if (route.afterCommit) committed.push(() => route.afterCommit!(scoped, result));
            const id = (result as { data?: { id?: unknown } } | undefined)?.data?.id;
            if (operation.ref && typeof id === 'string') ids.set(operation.ref, id);
            publishes ||= route.publishes === true;
            done.push({ status: route.status ?? 200, body: result });
          } catch (error) {
            throw inOperation(index, operation, error);
          }
        }
        await writeAudits(tx, audits);
        await bumpReadVersions(tx);
        if (publishes) await markConfigDirty(tx, 'batch');
        return done;
      }, BATCH_TRANSACTION));
      for (const run of committed) run();
      return { data: { results } };
    },
  };
}

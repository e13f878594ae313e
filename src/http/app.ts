import type { DnsSyncLoop } from '../publish/dns/dns-sync-loop.js';
import { randomUUID } from 'node:crypto';
import express, { type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { ANONYMOUS, type Actor } from './actor.js';
import { writeAudit, redactSecrets, type AuditEntry } from './audit-writer.js';
import { namesNow } from '../features/audit/target-names.js';
import { gitopsSourceOf } from './gitops-source.js';
import { markConfigDirty } from '../publish/dirty.js';
import type { ActiveVersion } from '../publish/active-version.js';
import type { ActiveSnapshotCache } from '../publish/publisher.js';
import { verifyEdgeRequest } from '../features/edges/edge-auth.js';
import { assertAllowed, resolveActor } from './auth.js';
import { dashboardRouter } from './dashboard.js';
import { edgeBodyReader } from './edge-body.js';
import { errorHandler, unknownRoute } from './error-handler.js';
import { ValidationError } from './errors.js';
import { CONFIG_CHANGE_HEADER, type Route, type RouteContext } from './route.js';
import { writeResult } from './reply-writer.js';
import { setBaselineHeaders } from './response-headers.js';
import { assertValid, validatorFor } from './validation.js';
import { trustedProxies } from '../config/trusted-proxies.js';
import { assertStorableBody, assertStorableParameters } from './storable-input.js';
import { transaction } from '../db/sql.js';
import type { CoreMetrics } from '../metrics/core-metrics.js';
import { METRICS_PATH, metricsEndpoint, requestMetrics, routeLabel } from '../metrics/metrics-endpoint.js';

declare module 'express-serve-static-core' {
  interface Request {
    log: Logger;
    requestId: string;
  }
}

/** Something the webhook and "reconcile now" can wake up: the in-core GitOps controller of `repo`, when one runs. */
export type Triggerable = { readonly repo: string; trigger: (reason: 'webhook' | 'manual' | 'request') => void };
/**
 * `servedSnapshots`: the config pull's cache of served versions, shared with the publisher so a version it stores is served without a read back.
 * `metrics`: the core process's metrics (docs/metrics.md), served at /metrics; absent, nothing is counted or served.
 */
export type AppDeps = { config: Config; prisma: Db; pool: pg.Pool; ajv: Ajv2020; logger: Logger; activeVersion: ActiveVersion; servedSnapshots?: ActiveSnapshotCache; gitops?: { controller?: Triggerable }; dns?: { loop?: DnsSyncLoop }; metrics?: CoreMetrics };

/** The raw body of a request that has none. */
export const EMPTY_BODY = Buffer.alloc(0);

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const AUDIT_TRANSACTION = { timeout: 20000, maxWait: 5000 };

/** The caller's X-Request-Id when it is a sane token, else a new UUID. */
export function requestIdFrom(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The debug line every request ends with: what was asked, the status and the time it took (ms). */
export function logCompletion(log: Logger, method: string, path: string, status: number, started: bigint): void {
  if (!log.isLevelEnabled('debug')) return;
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  log.debug({ method, path, status, ms: Math.round(ms * 10) / 10 }, 'request completed');
}

function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    req.requestId = requestIdFrom(req.headers['x-request-id']);
    req.log = logger.child({ requestId: req.requestId });
    res.setHeader('X-Request-Id', req.requestId);
    setBaselineHeaders(res);
    const started = process.hrtime.bigint();
    res.on('finish', () => logCompletion(req.log, req.method, req.path, res.statusCode, started));
    next();
  };
}

function deepestPathId(params: Record<string, string>): string | undefined {
  return params.ruleId ?? params.recordId ?? params.originId ?? params.requestId ?? params.domainId;
}

/** The audit event of one audited write: what the route names, the target the result or path gives, the body as sent (secrets redacted), and the GitOps source the caller declared. */
export function auditEntryOf(route: Route, context: RouteContext, result: unknown): AuditEntry {
  const audit = route.audit!;
  const answer = result as { data?: { id?: unknown } } | undefined;
  const targetId = audit.targetId?.(context, result) ?? (typeof answer?.data?.id === 'string' ? answer.data.id : deepestPathId(context.params));
  return {
    actor: context.actor,
    action: audit.action,
    targetType: audit.target,
    targetId,
    domainId: context.params.domainId ?? (audit.target === 'domain' ? targetId : undefined),
    requestId: context.requestId,
    gitops: context.gitops,
    detail: context.sent && Object.keys(context.sent).length > 0 ? { body: redactSecrets(context.sent) } : {},
  };
}

/**
 * Runs an audited route's handler on `tx` and writes its audit event there (the caller holds the
 * transaction), or adds it to `audits` for the caller to write with the others (a batch). A delete
 * reads the names of its target and domain first: the audit log keeps them once the rows are gone.
 */
export async function runAuditedStep(route: Route, context: RouteContext, tx: Db, audits?: AuditEntry[]): Promise<unknown> {
  const scoped = { ...context, db: tx };
  const names = route.method === 'delete' ? await namesNow(tx, auditEntryOf(route, scoped, undefined)) : {};
  const result = await route.handler(scoped);
  const entry = { ...auditEntryOf(route, scoped, result), ...names };
  if (audits) audits.push(entry);
  else await writeAudit(tx, entry);
  return result;
}

// Returns the handler's result and, for a route that publishes, the change_seq its write moved the config to.
async function runAudited(route: Route, context: RouteContext, prisma: Db): Promise<{ result: unknown; change?: bigint }> {
  const answered = await transaction(prisma, async (tx) => {
    const result = await runAuditedStep(route, context, tx);
    const change = route.publishes ? await markConfigDirty(tx, route.audit!.action) : undefined;
    return { result, change };
  }, AUDIT_TRANSACTION);
  route.afterCommit?.(context, answered.result);
  return answered;
}

function bodyOf(route: Route, req: Request): unknown {
  if (req.body !== undefined) return req.body;
  if (route.optionalBody) return {};
  throw new ValidationError(undefined, 'a JSON body is required (Content-Type: application/json)');
}

/** What authentication reads of a request. */
export type RequestCredentials = { method: string; pathWithQuery: string; headers: Record<string, string | undefined>; rawBody: Buffer; log: Logger };

/** The caller of a route at its auth level (an AuthError when the credentials do not hold). */
export async function authenticate(route: Route, request: RequestCredentials, deps: AppDeps): Promise<Actor> {
  if (route.auth === 'public') return ANONYMOUS;
  if (route.auth === 'edge') return verifyEdgeRequest(deps.pool, deps.config, request, { log: request.log });
  const actor = await resolveActor(request.headers.authorization, deps.config, deps.prisma);
  assertAllowed(actor, route.auth);
  return actor;
}

function credentialsOf(req: Request): RequestCredentials {
  const rawBody = (req as Request & { rawBody?: Buffer }).rawBody ?? EMPTY_BODY;
  return { method: req.method, pathWithQuery: req.originalUrl, headers: req.headers as Record<string, string | undefined>, rawBody, log: req.log };
}

async function reportRefusal(route: Route, actor: Actor, req: Request, deps: AppDeps, error: unknown): Promise<void> {
  try {
    await route.onRefused?.({ actor, db: deps.prisma, log: req.log }, error);
  } catch (hookError) {
    req.log.warn({ err: (hookError as Error).message }, 'recording a refused request failed');
  }
}

// Refuses what the database cannot store, validates the body, runs the handler (audited routes in their transaction) and writes the answer.
async function respond(route: Route, validate: ValidateFunction | undefined, req: Request, res: express.Response, actor: Actor, deps: AppDeps): Promise<void> {
  assertStorableParameters(req.params, req.query as Record<string, unknown>);
  const body = validate ? bodyOf(route, req) : undefined;
  assertStorableBody(body, route.itemsCheckedOneByOne);
  const sent = route.audit && body !== undefined ? structuredClone(body) : body;
  if (validate) assertValid(validate, body);
  const context: RouteContext = {
    params: req.params as Record<string, string>,
    query: req.query as Record<string, unknown>,
    body,
    sent,
    actor,
    headers: req.headers as Record<string, string | undefined>,
    rawBody: (req as Request & { rawBody?: Buffer }).rawBody ?? EMPTY_BODY,
    requestId: req.requestId,
    clientIp: req.ip ?? req.socket.remoteAddress ?? '',
    gitops: gitopsSourceOf(req.headers as Record<string, string | undefined>),
    db: deps.prisma,
    log: req.log,
  };
  if (!route.audit) return writeResult(res, route.status ?? 200, await route.handler(context));
  const { result, change } = await runAudited(route, context, deps.prisma);
  if (change !== undefined) res.setHeader(CONFIG_CHANGE_HEADER, String(change));
  writeResult(res, route.status ?? 200, result);
}

// Signature checks (webhooks) need the exact bytes that were sent.
const keepRawBody = (req: Request, _res: unknown, buffer: Buffer) => {
  (req as Request & { rawBody?: Buffer }).rawBody = buffer;
};

// Each route reads its body one way, whatever spelling of its path matched: signed edge routes
// keep the wire bytes (edge-body.ts), a rawBody route reads any content type as bytes, the rest parse JSON.
function bodyReader(route: Route, deps: AppDeps): RequestHandler {
  const limit = route.batchSizedBody ? deps.config.apiMaxBatchBodyBytes : deps.config.apiMaxBodyBytes;
  if (route.auth === 'edge') return edgeBodyReader(route, limit);
  if (route.rawBody) return express.raw({ type: () => true, limit, verify: keepRawBody });
  return express.json({ limit, type: ['application/json', 'application/*+json'], verify: keepRawBody });
}

function mount(app: express.Express, route: Route, deps: AppDeps): void {
  const validate = route.body ? validatorFor(deps.ajv, route.body) : undefined;
  app[route.method](route.path, bodyReader(route, deps), async (req, res) => {
    const actor = await authenticate(route, credentialsOf(req), deps);
    try {
      await respond(route, validate, req, res, actor, deps);
    } catch (error) {
      await reportRefusal(route, actor, req, deps, error);
      throw error;
    }
  });
}

// Request metrics for everything express answers, and /metrics itself, which is served beside the route table (text, its own guard).
function mountMetrics(app: express.Express, metrics: CoreMetrics, config: Config): void {
  app.use(requestMetrics(metrics));
  app.get(METRICS_PATH, metricsEndpoint(metrics, config.metricsToken));
}

/** Builds the express app: request ids, /metrics, every route with its body reader (bounded by the body limit), the dashboard, then the 404 and error funnel. */
export function createApp(deps: AppDeps, routes: Route[]): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', trustedProxies(deps.config.apiTrustedProxies));
  app.use(requestContext(deps.logger));
  if (deps.metrics) mountMetrics(app, deps.metrics, deps.config);
  for (const route of routes) mount(app, route, deps);
  app.use(routeLabel('dashboard'), dashboardRouter());
  app.use(routeLabel('unmatched'), unknownRoute);
  app.use(errorHandler);
  return app;
}

import type { Logger } from 'pino';
import type { Actor } from './actor.js';
import type { AuthLevel } from './auth.js';
import type { Db } from '../db/client.js';
import type { GitopsSource } from './gitops-source.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a handler sees: the parsed request, the caller and a database handle (a transaction for audited routes). */
export type RouteContext<Body = any> = {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Body;
  /** The body as the caller sent it, before defaults were filled in (what the audit log records). */
  sent: unknown;
  actor: Actor;
  /** Request headers (lower-case names) and the raw body bytes, for signature checks. */
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  requestId: string;
  /** The caller's address: the socket's, or the one a trusted proxy forwarded (CDN_API_TRUSTED_PROXIES). */
  clientIp: string;
  /** The GitOps repository and commit the caller says the request applies (X-CDN-GitOps-Repo/-Commit), for its audit events. */
  gitops?: GitopsSource;
  db: Db;
  log: Logger;
};

/** How an audited route names what it changed. Target id defaults to the result's data.id, else the deepest path id. */
export type AuditSpec = {
  action: string;
  target: string;
  targetId?: (context: RouteContext, result: any) => string | undefined;
};

/** A query parameter a handler reads, as the OpenAPI document describes it (paging of `paged` routes is added by itself). */
export type QueryParameter = { name: string; description: string; schema: Record<string, unknown>; required?: boolean };

/** One endpoint, declared as data next to its contract. */
export type Route = {
  method: Method;
  path: string;
  auth: AuthLevel;
  /** $id of the JSON Schema the body must match; absent means the body is ignored. */
  body?: string;
  /** When true an absent body is treated as `{}` before validation. */
  optionalBody?: boolean;
  /**
   * The body's array (a collector's `events`) whose items the handler checks one by one, refusing
   * bad ones and keeping the rest: text the database cannot store in them (NUL) is refused per item
   * by the handler (storableProblem) instead of refusing the whole request.
   */
  itemsCheckedOneByOne?: string;
  /**
   * Keep the exact body bytes (context.rawBody) whatever the content type, up to the
   * body limit, for signatures over what was sent (push webhooks). Only JSON is parsed.
   */
  rawBody?: boolean;
  /** Read bodies up to CDN_API_MAX_BATCH_BODY_BYTES instead of CDN_API_MAX_BODY_BYTES (a batch of writes). */
  batchSizedBody?: boolean;
  status?: number;
  /**
   * $id of the JSON Schema (schemas/api-responses) the success answer's body matches, for the
   * OpenAPI document (docs/api.md, "OpenAPI document"). Every GET names one; the GET sweep checks
   * real answers against it.
   */
  response?: string;
  /** The query parameters the handler reads besides `limit` and `offset`. */
  query?: QueryParameter[];
  /** Error statuses the handler itself answers besides those the framework gives every route (e.g. 409, 429). */
  refusals?: number[];
  /**
   * A list: the handler reads `limit` and `offset` with parsePaging (or parseOptionalPaging), so
   * out-of-range paging is refused the same way on every list (422 naming the parameter).
   */
  paged?: boolean;
  /** Audited routes run in one transaction with their audit event. */
  audit?: AuditSpec;
  /**
   * The same write for several bodies at once, for a batch's run of consecutive calls of this
   * route with the same path: the same checks and results as `handler` called for each body in
   * turn, in fewer queries. A refused body is thrown as an ItemError naming its index.
   */
  createMany?: (context: RouteContext, bodies: any[]) => Promise<unknown[]>;
  /** Runs once the route's transaction committed (e.g. waking a loop that must see the change). */
  afterCommit?: (context: RouteContext, result: any) => void;
  /**
   * A batch may run this route although its audit action is not a configuration write
   * (batch.ts): an action that onboarding needs next to the writes it follows (domain activation).
   */
  batchable?: boolean;
  /** The handler takes its own lock and transaction (not the request's), so it cannot run in a batch. */
  ownTransaction?: boolean;
  /** The change affects what edges or DNS serve: the published config is marked dirty in the same transaction. */
  publishes?: boolean;
  /**
   * Also served by the direct lane in front of express (direct-lane.ts), for the
   * hottest endpoints: GET of an exact path, edge or public auth, no body.
   */
  direct?: boolean;
  handler: (context: RouteContext) => Promise<unknown>;
  /**
   * Called when a request that passed authentication is refused anyway (its body
   * failed validation or the handler threw), before the error is answered; for
   * recording failures such as a refused edge heartbeat. Its own errors are logged.
   */
  onRefused?: (context: Pick<RouteContext, 'actor' | 'db' | 'log'>, error: unknown) => Promise<void>;
};

/** A handler result that picks its own status (e.g. readiness answering 503 with a body). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** The answer header naming the change_seq of a write that changed the published config (docs/snapshots.md, Rollout). */
export const CONFIG_CHANGE_HEADER = 'X-CDN-Config-Change';

/**
 * A handler result that is already serialized JSON (sent as is), optionally
 * already compressed, and with the request headers its choice depended on (`Vary`).
 */
export class RawJson {
  constructor(
    readonly body: string | Buffer,
    readonly encoding?: 'gzip',
    readonly vary?: string,
  ) {}
}

/** The refusal of one body of a createMany call: `index` is its position among the bodies. */
export class ItemError extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super((error as Error)?.message ?? String(error));
  }
}

/** The one result of a createMany-style call given one body; its refusal is thrown as itself, not as an ItemError. */
export async function onlyItem<T>(results: Promise<T[]>): Promise<T> {
  try {
    return (await results)[0];
  } catch (error) {
    throw error instanceof ItemError ? error.error : error;
  }
}

/** Runs a check for the body at `index`, turning what it throws into an ItemError. */
export function atItem<T>(index: number, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new ItemError(index, error);
  }
}

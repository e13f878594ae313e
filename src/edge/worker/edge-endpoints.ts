import express, { type Request, type Response } from 'express';
import type { TlsStatus } from '../tls/certificate-table.js';
import type { ActiveConfig } from '../config/active-config.js';
import type { AgentStatusView } from './messages.js';

/** What the edge's own endpoints read from the worker. */
export type EdgeEndpointState = {
  /** A new request id for each answer (every response of the edge carries X-Request-Id). */
  requestId(): string;
  active(): ActiveConfig | undefined;
  agent(): AgentStatusView | undefined;
  /** The worker's certificates (names served, certificates whose key has not arrived). */
  tls?(): TlsStatus;
  /** Asks the primary for an immediate config pull; resolves with its outcome. */
  reload(): Promise<Record<string, unknown>>;
};

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
// Headers a proxy adds on behalf of a client elsewhere: a loopback peer that sends one is relaying.
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'via'];

/** True for a client connected from the loopback interface. */
export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK.test(address);
}

/** True for an operator on the edge's own host: a loopback peer that relays nobody (a local proxy in front of the edge does). */
export function isLocalOperator(request: Request): boolean {
  return isLoopback(request.socket.remoteAddress) && FORWARDING_HEADERS.every((name) => request.headers[name] === undefined);
}

function configView(active: ActiveConfig | undefined, agent: AgentStatusView | undefined, now: number) {
  const config = agent?.config ?? {};
  const ageSeconds = active ? Math.floor((now - active.loadedAt) / 1000) : null;
  const newer = agent?.core_version != null && active !== undefined && agent.core_version > active.version;
  const lastSuccess = typeof config.last_success_at === 'number' ? config.last_success_at : null;
  const warnAfter = active?.edge.staleConfigWarningSeconds ?? 300;
  const stale = active !== undefined && ((newer && ageSeconds! > warnAfter) || (lastSuccess !== null && now / 1000 - lastSuccess > warnAfter));
  return {
    version: active?.version ?? null,
    checksum: active?.checksum ?? null,
    created_at: config.created_at ?? null,
    loaded_at: active ? Math.floor(active.loadedAt / 1000) : null,
    age_seconds: ageSeconds,
    source: config.source ?? null,
    stale,
    stale_warning_seconds: warnAfter,
    reloads: config.reloads ?? 0,
    reload_failures: config.reload_failures ?? 0,
    last_reload_error: config.last_reload_error ?? null,
    last_reload_error_at: config.last_reload_error_at ?? null,
    pull_failures: config.pull_failures ?? 0,
    last_pull_error: config.last_pull_error ?? null,
    last_success_at: lastSuccess,
  };
}

function statusBody(state: EdgeEndpointState) {
  const active = state.active();
  const agent = state.agent();
  const config = configView(active, agent, Date.now());
  const telemetry = agent?.telemetry ?? {};
  const drops = Object.values(telemetry).reduce((sum, queue) => sum + (Number(queue.drops) || 0), 0);
  const tls = state.tls?.() ?? null;
  const warnings = [...(config.stale ? ['config_stale'] : []), ...(drops > 0 ? ['telemetry_dropping'] : []), ...(tls?.certificates_without_key.length || tls?.certificates_unusable.length ? ['certificate_keys_missing'] : [])];
  return {
    ready: active !== undefined,
    edge_id: agent?.edge_id ?? null,
    worker: { pid: process.pid },
    config,
    telemetry,
    heartbeat: agent?.heartbeat ?? null,
    purges: agent?.purges ?? null,
    workers: agent?.workers ?? null,
    tls,
    warnings,
  };
}

function noStore(response: Response): Response {
  return response.set('cache-control', 'no-store');
}

/**
 * The edge's own endpoints (Express: they are not on the hot path): `/health`
 * (the process is up), `/ready` (200 once a snapshot is active, 503 before), and
 * `/__cdn_reload_config` (local operators only: a loopback client without forwarding
 * headers) which pulls config at once.
 */
export function createEdgeEndpoints(state: EdgeEndpointState) {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use((_request: Request, response: Response, next: () => void) => {
    response.set('x-request-id', state.requestId());
    next();
  });
  app.get('/health', (_request: Request, response: Response) => {
    const body = statusBody(state);
    noStore(response).json({ status: 'ok', edge_id: body.edge_id, worker: body.worker, config: { version: body.config.version, checksum: body.config.checksum, age_seconds: body.config.age_seconds } });
  });
  app.get('/ready', (_request: Request, response: Response) => {
    const body = statusBody(state);
    noStore(response).status(body.ready ? 200 : 503).json(body);
  });
  app.all('/__cdn_reload_config', async (request: Request, response: Response) => {
    if (!isLocalOperator(request)) {
      noStore(response).status(403).json({ error: 'forbidden', detail: 'config reload answers loopback clients that relay nobody (no forwarding headers) only' });
      return;
    }
    const result = await state.reload();
    noStore(response).status(result.outcome === 'unreachable' || result.outcome === 'invalid' ? 502 : 200).json({ data: result });
  });
  app.use((_request: Request, response: Response) => {
    noStore(response).status(404).json({ error: 'not found', detail: 'edge endpoints: /health, /ready, /__cdn_reload_config' });
  });
  return app;
}

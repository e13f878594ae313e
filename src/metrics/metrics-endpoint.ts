// GET /metrics on the core port (docs/metrics.md): Prometheus's text format, for loopback clients,
// or any client presenting CDN_METRICS_TOKEN as its bearer. Served beside the route table, like the
// dashboard: it answers text, not the API's JSON, and is no part of the REST API's contract.
import type { Request, RequestHandler, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { AuthError, ForbiddenError } from '../http/errors.js';
import { secretsEqual } from '../http/tokens.js';
import type { CoreMetrics } from './core-metrics.js';

/** Where the core serves its metrics. */
export const METRICS_PATH = '/metrics';

/** Whether `address` (IPv4, IPv6 or IPv4-mapped IPv6) is a loopback address. */
export function isLoopback(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

function bearerOf(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1] ?? '';
}

/**
 * Lets the scrape through or throws: a bearer that is sent must be CDN_METRICS_TOKEN (401 otherwise,
 * loopback or not); without one, only a loopback client may read. The client is req.ip: the socket's
 * address, or the one a trusted proxy (CDN_API_TRUSTED_PROXIES) forwarded, so a proxy on the same host
 * does not make every client look local.
 */
export function assertMayScrape(req: Request, token: string | undefined): void {
  const bearer = bearerOf(req.headers.authorization);
  if (bearer !== undefined) {
    if (token && secretsEqual(bearer, token)) return;
    throw new AuthError('invalid metrics token', token ? 'the bearer is not CDN_METRICS_TOKEN' : 'no CDN_METRICS_TOKEN is set: only loopback clients may read /metrics');
  }
  if (isLoopback(req.ip)) return;
  if (token) throw new AuthError('authentication required', 'send "Authorization: Bearer <CDN_METRICS_TOKEN>"');
  throw new ForbiddenError('metrics are served to loopback clients only', 'set CDN_METRICS_TOKEN to let remote scrapers in with that bearer');
}

async function writeMetrics(res: Response, metrics: CoreMetrics): Promise<void> {
  const text = await metrics.exposition();
  res.setHeader('Content-Type', metrics.contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.end(text);
}

/** The /metrics handler: the guard, then the registry's text. Errors go to the one error funnel. */
export function metricsEndpoint(metrics: CoreMetrics, token: string | undefined): RequestHandler {
  return async (req, res) => {
    assertMayScrape(req, token);
    await writeMetrics(res, metrics);
  };
}

/**
 * Counts every answered request under its route template: the template express matched
 * (req.route.path), else the label a later handler gave (`dashboard`), else `unmatched`. The raw
 * path never becomes a label.
 */
export function requestMetrics(metrics: CoreMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.request(req.method, routeLabelOf(req, res), res.statusCode, seconds);
    });
    next();
  };
}

function routeLabelOf(req: Request, res: Response): string {
  const template = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof template === 'string') return template;
  return typeof res.locals.routeLabel === 'string' ? res.locals.routeLabel : 'unmatched';
}

/** Names what handles the request from here on (the dashboard's pages), for the request metrics. */
export function routeLabel(label: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.routeLabel = label;
    next();
  };
}

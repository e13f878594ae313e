import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { authenticate, EMPTY_BODY, logCompletion, requestIdFrom, type AppDeps } from './app.js';
import { writeError } from './error-handler.js';
import { writeResult } from './reply-writer.js';
import { setBaselineHeaders } from './response-headers.js';
import type { Route, RouteContext } from './route.js';
import { assertStorableParameters } from './storable-input.js';

// A route the lane may take: nothing it serves may need express (path parameters,
// a body, an audit transaction, a refusal hook) or an operator's credentials.
function assertDirectable(route: Route): void {
  const fits = route.method === 'get' && !route.path.includes(':') && (route.auth === 'edge' || route.auth === 'public') && !route.body && !route.audit && !route.publishes && !route.onRefused;
  if (!fits) throw new Error(`route ${route.method.toUpperCase()} ${route.path} cannot be served by the direct lane`);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

async function serve(route: Route, req: IncomingMessage, res: ServerResponse, url: string, deps: AppDeps): Promise<void> {
  const started = process.hrtime.bigint();
  const requestId = requestIdFrom(req.headers['x-request-id']);
  const log = deps.logger.child({ requestId });
  res.setHeader('X-Request-Id', requestId);
  setBaselineHeaders(res);
  const headers = req.headers as Record<string, string | undefined>;
  try {
    const actor = await authenticate(route, { method: 'GET', pathWithQuery: url, headers, rawBody: EMPTY_BODY, log }, deps);
    const mark = url.indexOf('?');
    const query = parseQuery(mark === -1 ? '' : url.slice(mark + 1)) as Record<string, unknown>;
    assertStorableParameters({}, query);
    const context: RouteContext = { params: {}, query, body: undefined, sent: undefined, actor, headers, rawBody: EMPTY_BODY, requestId, clientIp: req.socket.remoteAddress ?? '', db: deps.prisma, log };
    writeResult(res, route.status ?? 200, await route.handler(context));
  } catch (error) {
    writeError(res, error, log);
  }
  logCompletion(log, 'GET', route.path, res.statusCode, started);
  deps.metrics?.request('GET', route.path, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * Puts the direct lane in front of `app`: GET requests without a body to a route
 * marked `direct` are served by plain node:http code, everything else by express.
 * The edges' config pull (about one per edge per second) spends most of its CPU
 * and garbage in express's routing and middleware otherwise (docs/benchmarks.md).
 * The lane keeps the same contract: request ids, authentication, the route's
 * handler, the JSON writer and the one error funnel.
 */
export function withDirectLane(app: RequestListener, deps: AppDeps, routes: Route[]): RequestListener {
  const direct = new Map<string, Route>();
  for (const route of routes.filter((candidate) => candidate.direct)) {
    assertDirectable(route);
    direct.set(route.path, route);
  }
  return (req, res) => {
    const url = req.url ?? '/';
    const route = req.method === 'GET' ? direct.get(url.split('?', 1)[0]) : undefined;
    if (!route || hasBody(req)) return app(req, res);
    void serve(route, req, res, url, deps);
  };
}

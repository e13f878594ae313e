import { Buffer } from 'node:buffer';
import { OriginError, errorPageFor } from '../origin/origin-error.js';
import type { RequestContext } from './context.js';
import type { EdgeResponse } from './response.js';

const REASONS: Record<number, string> = {
  400: 'Bad request',
  403: 'Access denied',
  404: 'Unknown site',
  405: 'Method not allowed',
  413: 'Request too large',
  429: 'Too many requests',
  500: 'Edge error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
  508: 'Loop detected',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A CDN-branded error page: the status, a one-line reason, what the visitor can
 * do, and the request id to quote to the site's operator. Never includes
 * anything from the request but the id (which the edge generated or checked),
 * also sent as X-Request-Id whoever writes the page.
 */
export function errorPage(ctx: RequestContext, status: number, detail: string, headers: Record<string, string> = {}): EdgeResponse {
  const title = REASONS[status] ?? 'Error';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${status} ${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:10vh auto;padding:0 1rem;color:#222}h1{font-size:1.6rem}code{background:#f3f3f3;padding:.1rem .3rem}</style></head>
<body><h1>${status} ${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>
<p>Request id: <code>${escapeHtml(ctx.requestId)}</code></p><hr><p><small>Served by the CDN edge</small></p></body></html>
`;
  const body = Buffer.from(html);
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(body.length), 'x-request-id': ctx.requestId, ...headers },
    body,
  };
}

/**
 * The page for a failure the runner's error funnel caught: an origin failure's
 * by its kind (errorPageFor: 502, 503, 504, 413), the edge's own 500 for anything else.
 */
export function failurePage(ctx: RequestContext, error: unknown): EdgeResponse {
  if (!(error instanceof OriginError)) return errorPage(ctx, 500, 'The edge failed while handling this request.');
  const { status, detail } = errorPageFor(error.kind);
  // The rest of a refused body is never read: nothing more on this connection can be trusted to start a request.
  return errorPage(ctx, status, detail, error.kind === 'too_large' ? { connection: 'close' } : {});
}

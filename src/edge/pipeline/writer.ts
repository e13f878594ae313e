import { Buffer } from 'node:buffer';
import type { Logger } from 'pino';
import type { Readable } from 'node:stream';
import type { RequestContext } from './context.js';
import { storeSerialisedHead } from './serialised-head.js';

/**
 * Writes `ctx.response` to the client: a buffer in one `end` (its head serialised by the edge where
 * it can be: serialised-head.ts), a stream piped with
 * backpressure (an origin error mid-body cuts the client connection, so a
 * truncated body is never mistaken for a whole one). Counts body bytes sent and
 * calls `done` once the client connection is done with the response. A client
 * that left before the response was ready gets nothing: its body is destroyed at
 * once (an origin stream closes, a file on disk is released) and `done` is called.
 */
export function writeResponse(ctx: RequestContext, logger: Logger, done: (ctx: RequestContext) => void): void {
  const { res } = ctx;
  const response = ctx.response!;
  const body = response.body;
  if (clientLeft(ctx)) {
    if (body !== null && !Buffer.isBuffer(body)) body.destroy();
    return done(ctx);
  }
  const headOnly = ctx.method === 'HEAD' || response.status === 204 || response.status === 304;
  const whole = Buffer.isBuffer(body) && !headOnly;
  if (!whole || !storeSerialisedHead(res, response.status, response.headers, ctx.headers.expect !== undefined, ctx.requestId)) res.writeHead(response.status, response.headers);
  if (body === null || headOnly) {
    if (body && !Buffer.isBuffer(body)) body.resume();
    res.end();
    return done(ctx);
  }
  if (Buffer.isBuffer(body)) {
    ctx.bytesSent = body.length;
    res.end(body);
    return done(ctx);
  }
  pipeBody(ctx, body, logger, done);
}

// A response closed before it was written never emits 'close' again, so nothing piped to it would
// end: a request whose connection went while a slow phase (disk, a fetch waited for) was working.
function clientLeft(ctx: RequestContext): boolean {
  return ctx.res.destroyed || ctx.req.socket.destroyed;
}

function pipeBody(ctx: RequestContext, body: Readable, logger: Logger, done: (ctx: RequestContext) => void): void {
  const { res } = ctx;
  body.on('data', (chunk: Buffer) => {
    ctx.bytesSent += chunk.length;
  });
  body.once('error', (error) => {
    logger.warn({ err: error, requestId: ctx.requestId }, 'response body failed mid-stream');
    res.destroy();
  });
  res.once('close', () => {
    if (!body.readableEnded) body.destroy();
    done(ctx);
  });
  body.pipe(res);
}

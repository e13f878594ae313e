import type { Phase } from './phase.js';

/** Headers that name software and its version, and hop-by-hop headers of the origin's connection, which must not reach the client (the cache strips them before storing). */
export const REMOVED_RESPONSE_HEADERS: readonly string[] = ['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version', 'x-runtime', 'x-generator', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'];

/**
 * hygiene (response phase, always runs last): removes the Server header and
 * version tokens, drops hop-by-hop headers, and stamps the request id so a
 * visitor's report can be found in the edge log. A `Connection: close` the edge
 * set itself (a body too large to read, a client gone) becomes Node's own
 * close of the connection after this response. Never handles.
 */
export const hygienePhase: Phase = {
  name: 'hygiene',
  run(ctx) {
    const headers = ctx.response!.headers;
    if (headers.connection === 'close') ctx.res.shouldKeepAlive = false;
    for (let index = 0; index < REMOVED_RESPONSE_HEADERS.length; index++) if (headers[REMOVED_RESPONSE_HEADERS[index]] !== undefined) delete headers[REMOVED_RESPONSE_HEADERS[index]];
    headers['x-request-id'] = ctx.requestId;
    return false;
  },
};

import type { Phase } from './phase.js';

/** Headers that name software and its version, and hop-by-hop headers of the origin's connection, which must not reach the client (the cache strips them before storing). */
export const REMOVED_RESPONSE_HEADERS: ReadonlySet<string> = new Set(['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version', 'x-runtime', 'x-generator', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

// Bit n of removedShapes[c] is set when a removed name starts with character code c and is n
// characters long. Most of a response's names (content-type, age, x-cache…) share neither with
// any removed name, and are passed without the set's lookup (some 70 instructions a name).
const removedShapes = new Uint32Array(128);
for (const name of REMOVED_RESPONSE_HEADERS) removedShapes[name.charCodeAt(0)] |= 1 << name.length;

function removed(name: string): boolean {
  const code = name.charCodeAt(0);
  return name.length < 32 && code < 128 && (removedShapes[code] & (1 << name.length)) !== 0 && REMOVED_RESPONSE_HEADERS.has(name);
}

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
    // The response's few names against the removed ones, not a lookup per removed name.
    for (const name in headers) if (removed(name)) delete headers[name];
    headers['x-request-id'] = ctx.requestId;
    return false;
  },
};

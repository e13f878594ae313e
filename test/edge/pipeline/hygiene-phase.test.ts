import { expect } from 'chai';
import type { RequestContext } from '../../../src/edge/pipeline/context.js';
import { hygienePhase, REMOVED_RESPONSE_HEADERS } from '../../../src/edge/pipeline/hygiene-phase.js';
import type { ResponseHeaders } from '../../../src/edge/pipeline/response.js';

// What hygiene reads and writes of a request: the response's headers, the connection, the request id.
function contextWith(headers: ResponseHeaders): RequestContext {
  return { response: { status: 200, headers, body: null }, res: { shouldKeepAlive: true }, requestId: 'id-1' } as unknown as RequestContext;
}

describe('hygiene phase', () => {
  it('removes every removed name, and keeps the names that share a first letter and a length with one', () => {
    const headers: ResponseHeaders = {};
    for (const name of REMOVED_RESPONSE_HEADERS) headers[name] = 'v';
    // x-served-by and x-generator, x-request-ip and x-powered-by, trailer and x-cache: alike in shape only.
    const kept = { 'content-type': 'text/plain', 'x-served-by': 'edge', 'x-request-ip': '192.0.2.1', trailers: 'v', servers: 'v', serve: 'v', 'x-cache': 'HIT', 'transfer-encodings': 'v' };
    Object.assign(headers, kept);
    const ctx = contextWith(headers);
    expect(hygienePhase.run(ctx)).to.equal(false);
    expect(ctx.response!.headers).to.deep.equal({ ...kept, 'x-request-id': 'id-1' });
  });
});

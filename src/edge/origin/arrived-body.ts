// The body of an origin response that arrived whole with its headers.
// The HTTP parser reads a socket's data to its end before the proxy looks at
// the response, so a small answer (the common case: headers and body in one
// write by the origin) is already complete and buffered by then. Taking it as
// one buffer spares the pipe of a stream to the client and to the cache, and the
// client gets headers and body in one write. Anything still arriving streams.
import type { IncomingMessage } from 'node:http';

const EMPTY = Buffer.alloc(0);

/** The whole body of `response` when the parser has read it all already, else undefined (it is streamed). */
export function arrivedBody(response: IncomingMessage): Buffer | undefined {
  if (!response.complete || response.readableFlowing !== null) return undefined;
  // Reading what is buffered of an ended stream ends it: the connection goes back to its pool.
  const body = response.read() as Buffer | null;
  if (body === null) response.resume();
  return body ?? EMPTY;
}

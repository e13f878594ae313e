// An HTTP/1.1 origin on node:net for the behaviours a node:http server tidies
// away: status lines of any text, connections closed without `Connection:
// close`, requests left unanswered. It parses request heads (and skips a
// Content-Length body) and hands each request to the test's handler.
import net, { type AddressInfo } from 'node:net';

/** One request as the raw origin read it. */
export type RawOriginRequest = {
  method: string;
  target: string;
  /** Header names in lower case; the last value of a repeated header. */
  headers: Record<string, string>;
  /** 0 for the first request on its connection, 1 for the next, … */
  sequence: number;
  socket: net.Socket;
  /** Writes a whole response with `statusLine` (e.g. `HTTP/1.1 200 OK`), a Content-Length and `headers`. */
  respond(statusLine: string, body?: string, headers?: Record<string, string>): void;
};

export type RawOrigin = {
  port: number;
  requests: RawOriginRequest[];
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
};

const HEAD_END = '\r\n\r\n';
const MAX_HEAD = 64 * 1024;

function parseHead(head: string): { method: string; target: string; headers: Record<string, string> } {
  const [requestLine, ...lines] = head.split('\r\n');
  const [method = '', target = ''] = requestLine.split(' ');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { method, target, headers };
}

function respond(socket: net.Socket, statusLine: string, body = '', headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const lines = [statusLine, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${Buffer.byteLength(body)}`];
  socket.write(`${lines.join('\r\n')}${HEAD_END}${body}`);
}

// Reads requests off one connection, one after the other, and passes each to `onRequest`.
function serveConnection(socket: net.Socket, origin: RawOrigin, onRequest: (request: RawOriginRequest) => void): void {
  let buffer = Buffer.alloc(0);
  let sequence = 0;
  let bodyLeft = 0;
  socket.on('error', () => {});
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (bodyLeft > 0) {
        const skipped = Math.min(bodyLeft, buffer.length);
        buffer = buffer.subarray(skipped);
        bodyLeft -= skipped;
        if (bodyLeft > 0) return;
      }
      const end = buffer.indexOf(HEAD_END);
      if (end < 0) {
        if (buffer.length > MAX_HEAD) socket.destroy();
        return;
      }
      const parsed = parseHead(buffer.subarray(0, end).toString('latin1'));
      buffer = buffer.subarray(end + HEAD_END.length);
      bodyLeft = Number(parsed.headers['content-length'] ?? 0);
      const request: RawOriginRequest = { ...parsed, sequence: sequence++, socket, respond: (statusLine, body, headers) => respond(socket, statusLine, body, headers) };
      origin.requests.push(request);
      onRequest(request);
    }
  });
}

/** Starts a raw origin on 127.0.0.1 handing every request to `onRequest`. */
export async function startRawOrigin(onRequest: (request: RawOriginRequest) => void): Promise<RawOrigin> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    origin.connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serveConnection(socket, origin, onRequest);
  });
  const origin: RawOrigin = {
    port: 0,
    requests: [],
    connections: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin.port = (server.address() as AddressInfo).port;
  return origin;
}

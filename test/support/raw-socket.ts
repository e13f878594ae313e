// Raw HTTP/1.1 over node:net, for what a client library would tidy up (two Host lines,
// absolute-form targets, unknown methods, malformed bytes).
import net from 'node:net';

// True once `text` holds one whole response (framed by Content-Length, chunked, or without a body).
function complete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const head = text.slice(0, end).toLowerCase();
  const body = text.slice(end + 4);
  if (/^http\/1\.[01] (1\d\d|204|304)/.test(head)) return true;
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  if (length) return body.length >= Number(length[1]);
  return /\r\ntransfer-encoding: *chunked/.test(head) && body.includes('\r\n0\r\n\r\n');
}

/**
 * Sends raw bytes on a fresh connection; resolves with the status of the first answer (0 when
 * the edge closed without one) once that answer is whole, the edge closed, or `waitMs` passed.
 */
export function sendRaw(port: number, bytes: string | Buffer, waitMs = 3000): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    const done = () => {
      socket.destroy();
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: match ? Number(match[1]) : 0, text });
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (complete(text)) done();
    });
    socket.on('error', () => undefined);
    socket.on('close', done);
    setTimeout(done, waitMs).unref();
  });
}


/** The header lines of a raw answer: lower-case name → every value, in order. */
export function rawHeaders(text: string): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  const end = text.indexOf('\r\n\r\n');
  for (const line of text.slice(0, end === -1 ? text.length : end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim());
  }
  return headers;
}

/** The body of a raw answer framed by Content-Length (the text after the head). */
export function rawBody(text: string): string {
  const end = text.indexOf('\r\n\r\n');
  return end === -1 ? '' : text.slice(end + 4);
}

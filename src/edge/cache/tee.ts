// Streams an origin body to the client while collecting it for the store.
import { PassThrough, type Readable } from 'node:stream';

/** How long the last bytes of a response wait for its object to reach the shared tier. */
const STORE_WAIT_MS = 100;

/**
 * Returns the stream the client reads. `done` is called once: with the whole
 * body after the origin finished it, or with null as soon as it exceeds `limit`
 * or fails. Backpressure follows the client; when the client leaves early the
 * body is still read to the end if it is being collected (others wait for it),
 * otherwise the origin stream is destroyed. While collecting, the last chunk is
 * held back until the store `done` returns has finished (at most 100 ms): a
 * client that has the whole answer then finds the object on any worker.
 */
export function teeForStore(source: Readable, limit: number, done: (body: Buffer | null) => void | Promise<void>): Readable {
  const client = new PassThrough();
  let chunks: Buffer[] | null = [];
  let size = 0;
  let settled = false;
  let ended = false;
  let held: Buffer | undefined;
  const finish = (body: Buffer | null): void | Promise<void> => {
    if (settled) return;
    settled = true;
    return done(body);
  };
  const clientGone = (): boolean => client.destroyed || client.writableEnded;
  const send = (chunk: Buffer): void => {
    if (!clientGone()) {
      if (!client.write(chunk)) source.pause();
    } else if (!chunks) source.destroy();
  };

  source.on('data', (chunk: Buffer) => {
    if (chunks) {
      size += chunk.length;
      if (size > limit) {
        chunks = null;
        finish(null);
      } else chunks.push(chunk);
    }
    if (held) send(held);
    held = undefined;
    if (chunks) held = chunk;
    else send(chunk);
  });
  client.on('drain', () => source.resume());
  source.on('end', () => {
    ended = true;
    const stored = finish(chunks ? Buffer.concat(chunks, size) : null);
    const last = held;
    held = undefined;
    if (!stored) return void client.end(last);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, STORE_WAIT_MS)));
    void Promise.race([stored.catch(() => undefined), waited]).then(() => {
      clearTimeout(timer);
      if (!client.destroyed) client.end(last);
    });
  });
  source.on('error', (error) => {
    client.destroy(error);
    finish(null);
  });
  source.on('close', () => {
    if (ended) return;
    finish(null);
    if (!client.destroyed) client.destroy(new Error('the origin closed the body before its end'));
  });
  client.on('close', () => {
    if (ended) return;
    if (chunks) source.resume();
    else source.destroy();
  });
  return client;
}

/** Reads a whole body for the store (background refreshes): the body, or null when it exceeds `limit` or fails. */
export function collectBody(body: Buffer | Readable | null, limit: number): Promise<Buffer | null> {
  if (body === null) return Promise.resolve(Buffer.alloc(0));
  if (Buffer.isBuffer(body)) return Promise.resolve(body.length <= limit ? body : null);
  return new Promise((resolve) => {
    const sink = teeForStore(body, limit, (collected) => {
      if (!collected) body.destroy();
      resolve(collected);
    });
    sink.resume();
  });
}

/** Discards a body the edge will not send (a 5xx replaced by a stale object). */
export function discardBody(body: Buffer | Readable | null): void {
  if (body !== null && !Buffer.isBuffer(body)) body.destroy();
}

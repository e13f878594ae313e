// Streams an origin body to the client while a fill writer (fill-writer.ts) stores it.
import { Buffer } from 'node:buffer';
import { PassThrough, pipeline, type Readable, type Writable } from 'node:stream';

/** How long the last bytes of a response wait for its object to reach the shared tier. */
export const STORE_WAIT_MS = 100;

/**
 * Returns the stream the client reads; `sink` gets the same bytes, is ended when
 * the origin finished the body and destroyed when it failed or was cut short.
 * Backpressure follows the slower of the client and the sink. When the client
 * leaves early the body is still read to the end while the sink stores it
 * (others wait for it), otherwise the origin stream is destroyed. While the sink
 * stores, the last chunk is held back until it finished (at most 100 ms): a
 * client that has the whole answer then finds the object on any worker.
 */
export function teeForStore(source: Readable, sink: Writable): Readable {
  const client = new PassThrough();
  let ended = false;
  let clientFull = false;
  let sinkFull = false;
  let held: Buffer | undefined;
  const storing = (): boolean => !sink.destroyed;
  const clientGone = (): boolean => client.destroyed || client.writableEnded;
  const flow = (): void => {
    if (ended) return;
    if (clientGone() && !storing()) source.destroy();
    else if ((clientFull && !clientGone()) || (sinkFull && storing())) source.pause();
    else source.resume();
  };
  const send = (chunk: Buffer): void => {
    if (!clientGone() && !client.write(chunk)) clientFull = true;
  };

  source.on('data', (chunk: Buffer) => {
    if (storing() && !sink.write(chunk)) sinkFull = true;
    if (held) send(held);
    held = undefined;
    if (storing()) held = chunk;
    else send(chunk);
    flow();
  });
  client.on('drain', () => {
    clientFull = false;
    flow();
  });
  sink.on('drain', () => {
    sinkFull = false;
    flow();
  });
  sink.on('close', flow);
  // The writer reports its own failures; an error here only means it stopped storing.
  sink.on('error', () => undefined);
  source.on('end', () => {
    ended = true;
    const last = held;
    held = undefined;
    if (!storing()) return void client.end(last);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      if (!client.destroyed) client.end(last);
    };
    const timer = setTimeout(release, STORE_WAIT_MS);
    sink.once('close', release);
    sink.end();
  });
  source.on('error', (error) => {
    client.destroy(error);
    sink.destroy();
  });
  source.on('close', () => {
    if (ended) return;
    sink.destroy();
    if (!client.destroyed) client.destroy(new Error('the origin closed the body before its end'));
  });
  client.on('close', flow);
  return client;
}

/** Stores a body no client reads (a background refresh) through `sink`; a failure on either side ends both. */
export function storeUnread(body: Readable, sink: Writable): void {
  pipeline(body, sink, () => undefined);
}

/** Discards a body the edge will not send (a 5xx replaced by a stale object). */
export function discardBody(body: Buffer | Readable | null): void {
  if (body !== null && !Buffer.isBuffer(body)) body.destroy();
}

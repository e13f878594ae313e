// The body of an origin response, as it arrives. The HTTP parser hands over a
// socket read whole, headers and body together, before the proxy looks at the
// response; so a small answer (the common case: headers and body in one write
// by the origin) is complete by then and is taken as one buffer. That spares a
// stream piped to the client and to the cache, and the client gets headers and
// body in one write. Anything still arriving is handed over as a stream, with
// backpressure down to the origin connection.
import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

const EMPTY = Buffer.alloc(0);
// What is held before the body is taken, at most, before the origin connection is paused (a stream's default buffer).
const HELD_BYTES = 16 * 1024;

export class ArrivingBody {
  private chunks: Buffer[] = [];
  private held = 0;
  private ended = false;
  private failure: Error | undefined;
  private stream: Readable | undefined;

  constructor(private readonly controller: Dispatcher.DispatchController) {}

  /** Takes a chunk from the origin; false when the origin connection should pause until the body is read. */
  push(chunk: Buffer): boolean {
    if (this.stream) return this.stream.push(chunk);
    this.chunks.push(chunk);
    this.held += chunk.length;
    return this.held < HELD_BYTES;
  }

  end(): void {
    this.ended = true;
    this.stream?.push(null);
  }

  /** The origin connection failed mid-body: the stream reader sees the error. */
  fail(error: Error): void {
    this.failure = error;
    this.stream?.destroy(error);
  }

  /** The whole body when it has arrived, else a stream of it (read once). */
  take(): Buffer | Readable {
    if (this.ended && !this.stream) return this.chunks.length === 1 ? this.chunks[0] : this.chunks.length === 0 ? EMPTY : Buffer.concat(this.chunks, this.held);
    return this.toStream();
  }

  /** Stops the origin response: a body no one will read. */
  discard(): void {
    if (!this.ended) this.controller.abort(new Error('the edge stopped reading the origin body'));
  }

  private toStream(): Readable {
    const controller = this.controller;
    const stream = new Readable({
      read: () => controller.resume(),
      destroy: (error, callback) => {
        if (!this.ended && !controller.aborted) controller.abort(error ?? new Error('the edge stopped reading the origin body'));
        callback(error);
      },
    });
    // A body cut off later (reset, read timeout) reaches the reader through its 'error'; no reader may be listening yet.
    stream.on('error', () => {});
    this.stream = stream;
    for (const chunk of this.chunks) stream.push(chunk);
    this.chunks = [];
    if (this.failure) stream.destroy(this.failure);
    else if (this.ended) stream.push(null);
    return stream;
  }
}

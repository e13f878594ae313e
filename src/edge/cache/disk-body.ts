// The body of a large object left in its disk file: served by streaming the
// bytes from the file, never read whole into memory. The file stays open from
// the lookup that found it to the last stream reading it, so a newer version
// renamed over it, or an eviction, never changes what is being sent.
import { Buffer } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** The size of the reads that stream a body from its file. */
const READ_BYTES = 64 * 1024;

// Reads bytes `position` to `end` (inclusive) of an open file; Node's file streams close
// the descriptor when destroyed, whatever `autoClose` says, and this one must stay open.
class FileRangeStream extends Readable {
  constructor(
    private readonly handle: FileHandle,
    private position: number,
    private readonly end: number,
  ) {
    super({ highWaterMark: READ_BYTES });
  }

  override _read(): void {
    const wanted = Math.min(READ_BYTES, this.end - this.position + 1);
    if (wanted <= 0) return void this.push(null);
    const chunk = Buffer.allocUnsafe(wanted);
    this.handle.read(chunk, 0, wanted, this.position).then(
      ({ bytesRead }) => {
        if (bytesRead === 0) return this.destroy(new Error('the cache file is shorter than its object'));
        this.position += bytesRead;
        this.push(bytesRead < wanted ? chunk.subarray(0, bytesRead) : chunk);
      },
      (error: Error) => this.destroy(error),
    );
  }
}

export class DiskBody {
  /** The lookup that opened the file, plus each stream and store still reading it. */
  private users = 1;

  /** `offset` is where the body starts in the file, `length` its size. */
  constructor(
    private readonly handle: FileHandle,
    readonly offset: number,
    readonly length: number,
  ) {}

  /** The bytes `start` to `end` (inclusive) of the body, as a stream that keeps the file open until it closes. */
  stream(start = 0, end = this.length - 1): Readable {
    this.retain();
    const stream = new FileRangeStream(this.handle, this.offset + start, this.offset + end);
    stream.once('close', () => this.release());
    return stream;
  }

  /** Keeps the file open for one more user (each retain is matched by a release). */
  retain(): void {
    this.users++;
  }

  /** Ends one use; the file is closed when the last one ends. */
  release(): void {
    if (--this.users === 0) void this.handle.close().catch(() => undefined);
  }
}

/** A stored body: whole in memory, or in its disk file. */
export type StoredBody = Buffer | DiskBody;

/** The whole of `body`, ready to send. */
export function sendable(body: StoredBody): Buffer | Readable {
  return Buffer.isBuffer(body) ? body : body.stream();
}

/** The bytes `start` to `end` (inclusive) of `body`, ready to send. */
export function sendablePart(body: StoredBody, start: number, end: number): Buffer | Readable {
  return Buffer.isBuffer(body) ? body.subarray(start, end + 1) : body.stream(start, end);
}

/** Ends the lookup's use of a body read from disk (nothing for a body in memory). */
export function releaseBody(body: StoredBody | undefined): void {
  if (body !== undefined && !Buffer.isBuffer(body)) body.release();
}

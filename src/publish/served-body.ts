import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** An answer's JSON body and its gzip copy, each made on first use and kept (the gzip off the event loop). */
export type ServedBody = { json: () => Buffer; gzip: () => Promise<Buffer> };

export function servedBody(make: () => Buffer): ServedBody {
  let made: Buffer | undefined;
  let compressed: Promise<Buffer> | undefined;
  const json = () => (made ??= make());
  return { json, gzip: () => (compressed ??= gzipAsync(json())) };
}

import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** `json`'s gzip copy, made off the event loop on first use and kept. */
export function lazyGzip(json: Buffer): () => Promise<Buffer> {
  let compressed: Promise<Buffer> | undefined;
  return () => (compressed ??= gzipAsync(json));
}

import type { Readable } from 'node:stream';

/** Response headers with lower-case names, as Node writes them. */
export type ResponseHeaders = Record<string, string | string[]>;

/**
 * The response a request phase decided on. Response phases (cache fill, header
 * rules, hygiene) may change status and headers before the runner writes it.
 * `body` is a whole buffer (cache hits, generated pages), a stream (an origin's
 * body, streamed to the client without buffering) or null (no body: HEAD, 304).
 */
export type EdgeResponse = {
  status: number;
  headers: ResponseHeaders;
  body: Buffer | Readable | null;
};

import type { ServerResponse } from 'node:http';
import { RawJson, Reply } from './route.js';

const JSON_TYPE = 'application/json; charset=utf-8';

function writeBody(res: ServerResponse, status: number, body: string | Buffer): void {
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Writes `body` as JSON with `status` and its length. */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  writeBody(res, status, JSON.stringify(body));
}

/**
 * Writes what a route handler returned: a Reply with its own status, RawJson as
 * it is (gzip-encoded and with `Vary` when it says so), anything else as JSON with `status`.
 */
export function writeResult(res: ServerResponse, status: number, result: unknown): void {
  if (result instanceof Reply) {
    for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
    return writeJson(res, result.status, result.body);
  }
  if (!(result instanceof RawJson)) return writeJson(res, status, result);
  if (result.encoding) res.setHeader('Content-Encoding', result.encoding);
  const vary = result.vary ?? (result.encoding ? 'Accept-Encoding' : undefined);
  if (vary) res.setHeader('Vary', vary);
  writeBody(res, status, result.body);
}

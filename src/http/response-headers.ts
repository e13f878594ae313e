import type { ServerResponse } from 'node:http';

/**
 * Headers every answer of the core carries, errors and 404s included, set before anything is written.
 * `nosniff`: a JSON answer is never read as HTML or script. `no-store`: answers carry tokens (admin
 * login), secrets (the edges' config) or live state, so no cache on the way keeps any of them.
 */
export function setBaselineHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
}

// Loop detection with CDN-Loop (RFC 8586): the edge adds its pseudonym to the
// CDN-Loop header of every request it sends to an origin, and refuses a request
// that already passed through it too often (an origin, or a chain of them, that
// points back at the edge). A shield tier of the same installation is one
// legitimate extra pass, so a request is refused on its third.
import { createHmac } from 'node:crypto';
import { errorPage } from './error-page.js';
import type { Phase } from './phase.js';

/** Passes through this CDN a request may already have made when it arrives. */
const MAX_PASSES = 2;
// The header is bounded by the server's 16 KiB header limit; a longer list is not read past this.
const MAX_ENTRIES = 64;

/**
 * The edge's CDN-Loop pseudonym: derived from the clearance secret, so every edge
 * of an installation (which share it) has the same one, another installation
 * running this software a different one, and nothing about the software shows.
 */
export function cdnLoopId(clearanceSecret: string): string {
  return `edge-${createHmac('sha256', clearanceSecret).update('cdn-loop').digest('hex').slice(0, 16)}`;
}

/** How many entries of a CDN-Loop header value name `id` (parameters after `;` ignored). */
export function passesThrough(value: string | string[] | undefined, id: string): number {
  if (value === undefined) return 0;
  const entries = (Array.isArray(value) ? value.join(',') : value).split(',', MAX_ENTRIES);
  let passes = 0;
  for (const entry of entries) {
    const semicolon = entry.indexOf(';');
    if ((semicolon === -1 ? entry : entry.slice(0, semicolon)).trim().toLowerCase() === id) passes++;
  }
  return passes;
}

/** The CDN-Loop value sent to an origin: the client's list with this edge appended. */
export function withCdnLoop(value: string | string[] | undefined, id: string): string {
  if (value === undefined) return id;
  return `${Array.isArray(value) ? value.join(', ') : value}, ${id}`;
}

/** loop (request phase, after host): handled with 508 Loop Detected when the request already came through this CDN MAX_PASSES times. */
export function loopPhase(id: string): Phase {
  return {
    name: 'loop',
    run(ctx) {
      const header = ctx.headers['cdn-loop'];
      if (header === undefined || passesThrough(header, id) < MAX_PASSES) return false;
      ctx.response = errorPage(ctx, 508, 'This request came back to the CDN from the site\'s own server: the site\'s origin points at the CDN.');
      return true;
    },
  };
}

import type { Route } from './route.js';

/** The error body every refusal carries (docs/api.md, "Errors"); some add fields (an import's per-line errors, `retry_after`). */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', description: 'A short message.' },
    field: { type: 'string', description: 'The offending field, a dotted path for nested fields.' },
    detail: { type: 'string', description: 'What went wrong and what to do.' },
  },
  examples: [{ error: 'validation failed', field: 'ttl', detail: 'ttl must be >= 60' }],
};

/** What each error status means, as the one error funnel (error-handler.ts) answers it. */
export const ERROR_MEANINGS: Record<number, string> = {
  400: 'The request cannot be read: malformed JSON, a body that does not match its Content-Encoding, nesting deeper than 64 levels, or a path segment with an invalid percent-escape.',
  401: 'Missing, malformed or invalid credentials.',
  403: 'The API token is valid but this endpoint needs an admin session.',
  404: 'The addressed record does not exist (or the route is not one of this API).',
  409: 'The request conflicts with the current state (the `detail` says which).',
  413: 'The body is over the size limit.',
  415: 'The body has a Content-Encoding or charset the server does not read.',
  422: 'A value breaks a rule: `field` names it (a body field, a path or query parameter).',
  429: 'Too many attempts: wait `Retry-After` seconds.',
  500: 'Something unexpected; logged with the request id.',
  503: 'The database cannot be reached, or a write conflicted with a concurrent one: retry shortly.',
};

/**
 * The error statuses a route can answer: those the framework gives every route of its kind
 * (reading a body, authenticating at its level, looking up a path id) and the route's own `refusals`.
 */
export function errorStatusesOf(route: Route): number[] {
  const statuses = new Set<number>([422, 500, 503, ...(route.refusals ?? [])]);
  const hasBody = route.body !== undefined || route.rawBody === true;
  const hasPathIds = route.path.includes(':');
  if (hasBody || hasPathIds) statuses.add(400);
  if (route.auth !== 'public') statuses.add(401);
  if (route.auth === 'admin-session') statuses.add(403);
  if (hasPathIds) statuses.add(404);
  if (hasBody) {
    statuses.add(413);
    statuses.add(415);
  }
  return [...statuses].sort((a, b) => a - b);
}

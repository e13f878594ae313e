// Query parameters several routes read, described once for the OpenAPI document (Route.query).
import { MAX_UNIX_SECONDS } from './timestamps.js';
import type { QueryParameter } from './route.js';

const UNIX_SECONDS = { type: 'integer', minimum: 0, maximum: MAX_UNIX_SECONDS };

/** `domain_id`: narrows a list or summary to one domain. */
export const DOMAIN_ID_FILTER: QueryParameter = { name: 'domain_id', description: 'Only this domain (its id).', schema: { type: 'string', minLength: 1 } };

/** `from` and `to`: a [from, to) window in unix seconds. */
export const TIME_WINDOW: QueryParameter[] = [
  { name: 'from', description: 'Start of the window, unix seconds (inclusive).', schema: UNIX_SECONDS },
  { name: 'to', description: 'End of the window, unix seconds (exclusive; default now).', schema: UNIX_SECONDS },
];

/** `bucket`, `from`, `to`: an analytics window (analytics/window.ts). */
export const ANALYTICS_WINDOW: QueryParameter[] = [
  { name: 'bucket', description: 'Series resolution (default: the analytics settings\' default_bucket; the default span is an hour by minute, a day by hour, 30 days by day).', schema: { type: 'string', enum: ['minute', 'hour', 'day'] } },
  ...TIME_WINDOW,
];

import { ValidationError } from '../../http/errors.js';
import { optionalUnixParam } from '../../http/query.js';

export type Bucket = 'minute' | 'hour' | 'day';
export type Window = { bucket: Bucket; from: Date; to: Date };

const BUCKETS: Bucket[] = ['minute', 'hour', 'day'];
// Default spans: the last hour by minute, the last day by hour, the last 30 days by day.
const DEFAULT_SPAN_SECONDS: Record<Bucket, number> = { minute: 3600, hour: 86400, day: 30 * 86400 };
const MAX_POINTS = 5000;
const SECONDS: Record<Bucket, number> = { minute: 60, hour: 3600, day: 86400 };

/** The bucket and [from, to) window of an analytics query: `bucket`, `from`, `to` (unix seconds), with defaults. */
export function parseWindow(query: Record<string, unknown>, defaultBucket: Bucket = 'hour', now = new Date()): Window {
  const bucket = (query.bucket ?? defaultBucket) as Bucket;
  if (!BUCKETS.includes(bucket)) throw new ValidationError('bucket', 'bucket must be minute, hour or day');
  const to = optionalUnixParam(query, 'to') ?? Math.floor(now.getTime() / 1000);
  const from = optionalUnixParam(query, 'from') ?? to - DEFAULT_SPAN_SECONDS[bucket];
  if (from >= to) throw new ValidationError('from', 'from must be before to');
  if ((to - from) / SECONDS[bucket] > MAX_POINTS) throw new ValidationError('bucket', `that window has more than ${MAX_POINTS} ${bucket} buckets; use a larger bucket`);
  return { bucket, from: new Date(from * 1000), to: new Date(to * 1000) };
}

import { ValidationError } from '../../http/errors.js';
import { MAX_UNIX_SECONDS } from '../../http/timestamps.js';

export type Bucket = 'minute' | 'hour' | 'day';
export type Window = { bucket: Bucket; from: Date; to: Date };

const BUCKETS: Bucket[] = ['minute', 'hour', 'day'];
// Default spans: the last hour by minute, the last day by hour, the last 30 days by day.
const DEFAULT_SPAN_SECONDS: Record<Bucket, number> = { minute: 3600, hour: 86400, day: 30 * 86400 };
const MAX_POINTS = 5000;
const SECONDS: Record<Bucket, number> = { minute: 60, hour: 3600, day: 86400 };

function unixParam(query: Record<string, unknown>, name: string): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const seconds = typeof raw === 'string' && /^\d{1,12}$/.test(raw) ? Number(raw) : NaN;
  if (!(seconds <= MAX_UNIX_SECONDS)) throw new ValidationError(name, `${name} must be a unix timestamp in seconds (at most ${MAX_UNIX_SECONDS})`);
  return seconds;
}

/** The bucket and [from, to) window of an analytics query: `bucket`, `from`, `to` (unix seconds), with defaults. */
export function parseWindow(query: Record<string, unknown>, defaultBucket: Bucket = 'hour', now = new Date()): Window {
  const bucket = (query.bucket ?? defaultBucket) as Bucket;
  if (!BUCKETS.includes(bucket)) throw new ValidationError('bucket', 'bucket must be minute, hour or day');
  const to = unixParam(query, 'to') ?? Math.floor(now.getTime() / 1000);
  const from = unixParam(query, 'from') ?? to - DEFAULT_SPAN_SECONDS[bucket];
  if (from >= to) throw new ValidationError('from', 'from must be before to');
  if ((to - from) / SECONDS[bucket] > MAX_POINTS) throw new ValidationError('bucket', `that window has more than ${MAX_POINTS} ${bucket} buckets; use a larger bucket`);
  return { bucket, from: new Date(from * 1000), to: new Date(to * 1000) };
}

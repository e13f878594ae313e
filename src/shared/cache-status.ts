/** Edge cache statuses that mean the response was served from the cache (not fetched from the origin). */
export const CACHED_STATUSES = ['hit', 'stale', 'revalidated', 'updating'] as const;

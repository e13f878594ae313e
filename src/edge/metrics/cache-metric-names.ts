// The cache metrics both sides of the edge report under one name: each worker its memory tier, the
// primary the shared disk tier (its index lives there). A scrape adds them up by `tier`.

const tier = ['tier'];

export const CACHE_METRICS = {
  objects: { name: 'cdn_edge_cache_objects', help: 'Objects held by the cache, by tier (memory: every worker\'s added up; disk: shared by the workers).', labelNames: tier },
  bytes: { name: 'cdn_edge_cache_bytes', help: 'Bytes held by the cache, by tier.', labelNames: tier },
  evictions: { name: 'cdn_edge_cache_evictions_total', help: 'Objects removed from a cache tier to make room (least recently used first), by tier.', labelNames: tier },
};

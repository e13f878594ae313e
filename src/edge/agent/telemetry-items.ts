// The items of the three telemetry streams, as the collector schemas take them
// (schemas/api/usage-event.json, security-event.json, origin-health-observation.json).
// Times are unix seconds. The core checks each item on its own and reports refusals.

/** `count` requests alike in every field (1 when absent); `bytes` is their sum. */
export type UsageEvent = {
  domain: string;
  path: string;
  status: number;
  bytes: number;
  count?: number;
  cache_status: string;
  timestamp: number;
  client_country?: string | null;
  client_ip?: string | null;
};

/** The path of a usage event whose requests' own paths were not kept (docs/edge-agent.md, "Usage counts"). */
export const OTHER_PATHS = '/(other)';

export type SecurityEvent = {
  domain: string;
  kind: 'waf' | 'rate_limit' | 'ip_rule' | 'bot' | 'geo' | 'challenge';
  action: 'block' | 'challenge' | 'allow' | 'log' | 'pass';
  timestamp: number;
  rule_id?: string | null;
  method?: string | null;
  path?: string | null;
  client_country?: string | null;
  client_ip?: string | null;
  user_agent?: string | null;
  details?: Record<string, unknown>;
};

export type OriginObservation = {
  origin_id: string;
  source: 'probe' | 'passive';
  success: boolean;
  timestamp: number;
  failure_kind?: 'timeout' | 'connect' | 'tls' | 'http' | null;
  http_status?: number | null;
  latency_ms?: number | null;
  jitter_ms?: number | null;
  detail?: string | null;
};

/** The bytes an item takes in a batch; NaN when it cannot be serialized (the queue then drops it rather than poison a batch). */
export function serializedSize(item: unknown): number {
  try {
    const text = JSON.stringify(item);
    return typeof text === 'string' ? Buffer.byteLength(text) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

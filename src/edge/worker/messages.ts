// The messages between the edge primary (agent) and its workers, over the
// cluster IPC channel. Plain JSON; every message has a `t` naming its kind.

/** What /health and /ready show about the agent; the primary sends it to every worker each second. */
export type AgentStatusView = {
  edge_id: string;
  config: Record<string, unknown>;
  heartbeat: Record<string, unknown>;
  telemetry: Record<string, Record<string, unknown>>;
  purges: { applied: number; failed: number; pending: number };
  workers: { configured: number; alive: number };
  core_version: number | null;
};

export type UsageEvent = {
  domain: string;
  path: string;
  status: number;
  bytes: number;
  cache_status: string;
  timestamp: number;
  client_country: string | null;
  client_ip: string;
};

export type SecurityEvent = {
  domain: string;
  kind: string;
  action: string;
  rule_id: string | null;
  method: string;
  path: string;
  client_country: string | null;
  client_ip: string;
  user_agent: string | null;
  details?: Record<string, unknown>;
  timestamp: number;
};

export type OriginObservation = {
  origin_id: string;
  source: 'probe' | 'passive';
  success: boolean;
  failure_kind?: 'timeout' | 'connect' | 'tls' | 'http' | null;
  http_status?: number | null;
  latency_ms?: number | null;
  jitter_ms?: number | null;
  detail?: string | null;
  timestamp: number;
};

export type ToWorker =
  | { t: 'snapshot'; version: number; checksum: string; createdAt: number; json: string }
  | { t: 'status'; status: AgentStatusView }
  | { t: 'probe'; observations: OriginObservation[] }
  | { t: 'reload-result'; id: number; result: Record<string, unknown> };

export type ToPrimary =
  | { t: 'activated'; version: number; purgeIds: string[] }
  | { t: 'activation-failed'; version: number; error: string }
  | {
      t: 'telemetry';
      usage: UsageEvent[];
      security: SecurityEvent[];
      observations: OriginObservation[];
      dropped: { usage: number; security: number; observations: number };
      stored: { file: string; size: number }[];
    }
  | { t: 'reload'; id: number };

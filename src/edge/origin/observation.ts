// The origin health observation the edge sends to the core's collector
// (schemas/api/origin-health-observation.json).

export type OriginFailureKind = 'timeout' | 'connect' | 'tls' | 'http';

export type OriginObservation = {
  origin_id: string;
  source: 'passive' | 'probe';
  success: boolean;
  failure_kind: OriginFailureKind | null;
  http_status: number | null;
  latency_ms: number | null;
  jitter_ms?: number | null;
  detail: string | null;
  /** Unix seconds. */
  timestamp: number;
};

/** What one attempt or probe came to, before it is stamped as an observation. */
export type OriginOutcome = {
  success: boolean;
  failureKind: OriginFailureKind | null;
  httpStatus: number | null;
  latencyMs: number | null;
  detail: string | null;
};

const MAX_LATENCY_MS = 600000;
const MAX_DETAIL = 200;
// The class of src/shared/control-characters.ts: the collector refuses them in text fields.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `text` fit for the collector's `detail`: one line, bounded, null when empty. */
export function observationDetail(text: string | null | undefined): string | null {
  if (!text) return null;
  return text.slice(0, MAX_DETAIL).replace(CONTROL_CHARACTERS, ' ');
}

/** A latency in whole ms within the collector's bounds. */
export function boundedMs(ms: number | null): number | null {
  return ms === null ? null : Math.min(MAX_LATENCY_MS, Math.max(0, Math.round(ms)));
}

/** The collector observation for `outcome` of `originId`, stamped at `now` (ms). */
export function toObservation(originId: string, source: 'passive' | 'probe', outcome: OriginOutcome, now: number): OriginObservation {
  return {
    origin_id: originId,
    source,
    success: outcome.success,
    failure_kind: outcome.success ? null : outcome.failureKind,
    http_status: outcome.httpStatus,
    latency_ms: boundedMs(outcome.latencyMs),
    detail: observationDetail(outcome.detail),
    timestamp: Math.floor(now / 1000),
  };
}

/** The outcome of an answered request: 5xx is an HTTP failure, anything else a success. */
export function responseOutcome(status: number, latencyMs: number): OriginOutcome {
  const success = status < 500;
  return { success, failureKind: success ? null : 'http', httpStatus: status, latencyMs, detail: success ? null : `status ${status}` };
}

/** The outcome of an attempt that got no usable response: a TLS failure, a timeout, an HTTP failure (a status no client can be given), or else a connect failure. */
export function failureOutcome(error: { kind: string; message: string }, latencyMs: number): OriginOutcome {
  const failureKind = error.kind === 'tls' || error.kind === 'timeout' ? error.kind : error.kind === 'invalid_response' ? 'http' : 'connect';
  return { success: false, failureKind, httpStatus: null, latencyMs, detail: error.message };
}

// Active health probes of monitored origins (health_check_path set), run by the
// cluster primary: GET the path every interval on a fresh connection (so connect
// and TLS are measured too), report each result as a 'probe' observation. The
// integrator forwards them to the collector and broadcasts them to the workers'
// health views.
import http from 'node:http';
import https from 'node:https';
import { hasControlCharacter } from '../../shared/control-characters.js';
import type { SnapshotDomain, SnapshotOrigin } from '../../shared/snapshot.js';
import { toObservation, type OriginObservation, type OriginOutcome } from './observation.js';
import { socketHost, tlsName, type OriginTls } from './origin-pools.js';

export type OriginProberOptions = {
  intervalSeconds: number;
  onObservation: (observation: OriginObservation) => void;
  /** Caps of the origins' own timeouts (CDN_EDGE_PROXY_CONNECT/READ_TIMEOUT_SECONDS). */
  connectTimeoutCapMs?: number;
  readTimeoutCapMs?: number;
  tls?: OriginTls;
};

type Target = { origin: SnapshotOrigin; apex: string; key: string };
type Probe = { target: Target; timer: NodeJS.Timeout; running: http.ClientRequest | null; lastLatencyMs: number | null };

function targetKey(origin: SnapshotOrigin, apex: string): string {
  return JSON.stringify([origin.scheme, origin.host, origin.port, origin.host_header, origin.health_check_path, origin.timeouts, apex]);
}

function probeable(path: string | null): path is string {
  return path !== null && path.startsWith('/') && path.length <= 2048 && !hasControlCharacter(path) && !/\s/.test(path);
}

export class OriginProber {
  private readonly probes = new Map<string, Probe>();
  private stopped = false;

  constructor(private readonly options: OriginProberOptions) {}

  /** Probes exactly the monitored origins of `domains` from now on; unchanged origins keep their schedule. */
  update(domains: readonly SnapshotDomain[]): void {
    if (this.stopped) return;
    const wanted = new Map<string, Target>();
    for (const domain of domains) {
      for (const origin of domain.origins) {
        if (probeable(origin.health_check_path)) wanted.set(origin.id, { origin, apex: domain.domain, key: targetKey(origin, domain.domain) });
      }
    }
    for (const [id, probe] of this.probes) {
      if (wanted.get(id)?.key !== probe.target.key) this.drop(id, probe);
    }
    for (const [id, target] of wanted) if (!this.probes.has(id)) this.start(id, target);
  }

  /** Stops every probe, aborting those under way. */
  stop(): void {
    this.stopped = true;
    for (const [id, probe] of this.probes) this.drop(id, probe);
  }

  private start(id: string, target: Target): void {
    const intervalMs = this.options.intervalSeconds * 1000;
    // A random first delay spreads the probes of many origins over the interval.
    const probe: Probe = { target, timer: setTimeout(() => this.tick(probe), Math.floor(Math.random() * intervalMs)), running: null, lastLatencyMs: null };
    probe.timer.unref();
    this.probes.set(id, probe);
  }

  private drop(id: string, probe: Probe): void {
    clearTimeout(probe.timer);
    probe.running?.destroy();
    this.probes.delete(id);
  }

  private tick(probe: Probe): void {
    probe.timer = setTimeout(() => this.tick(probe), this.options.intervalSeconds * 1000);
    probe.timer.unref();
    // A probe still waiting on a slow origin is not doubled up.
    if (!probe.running) this.send(probe);
  }

  private send(probe: Probe): void {
    const { origin, apex } = probe.target;
    const started = Date.now();
    const connectMs = Math.min(origin.timeouts.connect_ms, this.options.connectTimeoutCapMs ?? Infinity);
    const readMs = Math.min(origin.timeouts.read_ms, this.options.readTimeoutCapMs ?? Infinity);
    const host = origin.host_header ?? apex;
    const options = { host: socketHost(origin.host), port: origin.port, path: origin.health_check_path!, method: 'GET', agent: false as const, headers: { host, 'user-agent': 'cdn-edge-health-probe', accept: '*/*' } };
    const request = origin.scheme === 'https' ? https.request({ ...options, servername: tlsName(origin, host), ca: this.options.tls?.ca }) : http.request(options);
    probe.running = request;
    let stage: 'connecting' | 'handshaking' | 'sent' = 'connecting';
    let settled = false;
    const finish = (outcome: OriginOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      probe.running = null;
      request.destroy();
      if (this.probes.get(origin.id) === probe) this.report(probe, outcome);
    };
    const failure = (failureKind: OriginOutcome['failureKind'], detail: string): OriginOutcome => ({ success: false, failureKind, httpStatus: null, latencyMs: Date.now() - started, detail });
    const connectTimer = setTimeout(() => finish(failure('timeout', `not connected within ${connectMs} ms`)), connectMs);
    request.setTimeout(readMs, () => finish(failure('timeout', `no answer within ${readMs} ms`)));
    request.once('socket', (socket) => {
      socket.once('connect', () => {
        if (origin.scheme !== 'https') return void (clearTimeout(connectTimer), (stage = 'sent'));
        stage = 'handshaking';
        socket.once('secureConnect', () => void (clearTimeout(connectTimer), (stage = 'sent')));
      });
    });
    request.on('error', (error: Error & { code?: string }) => finish(failure(stage === 'handshaking' ? 'tls' : 'connect', error.code ?? error.message)));
    request.once('response', (response) => {
      const status = response.statusCode ?? 0;
      const success = status >= 200 && status < 400;
      response.on('error', () => {});
      response.resume();
      finish({ success, failureKind: success ? null : 'http', httpStatus: status, latencyMs: Date.now() - started, detail: success ? null : `status ${status}` });
    });
    request.end();
  }

  // Jitter: how far this latency is from the previous probe's.
  private report(probe: Probe, outcome: OriginOutcome): void {
    const observation = toObservation(probe.target.origin.id, 'probe', outcome, Date.now());
    const latency = observation.latency_ms;
    observation.jitter_ms = latency !== null && probe.lastLatencyMs !== null ? Math.abs(latency - probe.lastLatencyMs) : null;
    probe.lastLatencyMs = latency;
    this.options.onObservation(observation);
  }
}

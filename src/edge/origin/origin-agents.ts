// Keep-alive connection pools, one per origin, and the per-origin bound on
// requests waiting for a connection (limits.max_pending_requests).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { SnapshotOrigin } from '../../shared/snapshot.js';

// An idle pooled connection is closed after this long: shorter than the 5 s
// keep-alive timeout of Node, Apache and uvicorn (nginx keeps 75 s), so the edge
// is rarely the side that reuses a connection the origin is closing at that
// moment; the proxy sends a request caught by that race again (docs/edge-origins.md).
// An origin's `Keep-Alive: timeout=N` shortens it further (Node's agent: N - 1 s).
const IDLE_SOCKET_MS = 4000;

/** TLS trust for https origins: certificates are always verified, against the system CAs unless `ca` is given. */
export type OriginTls = Pick<SecureContextOptions, 'ca'>;

type Pool = { key: string; agent: http.Agent; inFlight: number; fresh?: http.Agent };

function poolKey(origin: SnapshotOrigin): string {
  return `${origin.scheme}|${origin.host}|${origin.port}|${origin.limits.max_connections ?? ''}`;
}

/** `host` as a socket address: an IPv6 literal without its brackets. */
export function socketHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * The name the TLS certificate of `origin` is checked against (and sent as SNI):
 * its host_header when set, else its host when that is a name, else the client's
 * host (an origin addressed by IP serves the site's own certificate). Undefined
 * for an address, which SNI cannot carry.
 */
export function tlsName(origin: SnapshotOrigin, clientHost: string): string | undefined {
  const host = socketHost(origin.host);
  const name = (origin.host_header ?? (isIP(host) ? clientHost : host)).replace(/:\d+$/, '');
  return isIP(socketHost(name)) ? undefined : name;
}

export class OriginAgents {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly tls: OriginTls = {}) {}

  /** The keep-alive agent of `origin` (maxSockets = limits.max_connections when set); a changed address gets a fresh pool. */
  agentFor(origin: SnapshotOrigin): http.Agent {
    return this.poolOf(origin).agent;
  }

  /**
   * An agent of `origin` that always opens a new connection and closes it after
   * the response (`Connection: close`): for the one retry after a reused
   * connection turned out closed, which another pooled connection could repeat.
   */
  freshAgentFor(origin: SnapshotOrigin): http.Agent {
    const pool = this.poolOf(origin);
    pool.fresh ??= this.createAgent(origin, false);
    return pool.fresh;
  }

  /**
   * Counts a request to `origin` in, or answers false when it would have to wait
   * behind max_pending_requests others for a connection. Without max_connections
   * nothing waits, so nothing is refused.
   */
  admit(origin: SnapshotOrigin): boolean {
    const pool = this.poolOf(origin);
    const { max_connections: connections, max_pending_requests: pending } = origin.limits;
    if (connections !== null && pending !== null && pool.inFlight - connections >= pending) return false;
    pool.inFlight++;
    return true;
  }

  /** Counts out a request admit let in, once it is finished (response read or failed). */
  release(origin: SnapshotOrigin): void {
    const pool = this.pools.get(origin.id);
    if (pool && pool.inFlight > 0) pool.inFlight--;
  }

  /** Closes every pooled connection (shutdown). */
  close(): void {
    for (const pool of this.pools.values()) {
      pool.agent.destroy();
      pool.fresh?.destroy();
    }
    this.pools.clear();
  }

  private poolOf(origin: SnapshotOrigin): Pool {
    const key = poolKey(origin);
    const existing = this.pools.get(origin.id);
    if (existing?.key === key) return existing;
    // The old pool's requests finish on their own sockets, which then idle out.
    if (existing) this.closeIdle(existing.agent);
    const pool: Pool = { key, agent: this.createAgent(origin), inFlight: existing?.inFlight ?? 0 };
    this.pools.set(origin.id, pool);
    return pool;
  }

  // Without keep-alive the agent pools nothing; its maxSockets stays unlimited so that Node sends `Connection: close`.
  private createAgent(origin: SnapshotOrigin, keepAlive = true): http.Agent {
    const options = keepAlive ? { keepAlive, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const, maxSockets: origin.limits.max_connections ?? Infinity } : { keepAlive };
    return origin.scheme === 'https' ? new https.Agent({ ...options, ca: this.tls.ca }) : new http.Agent(options);
  }

  private closeIdle(agent: http.Agent): void {
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }
}

// Keep-alive connection pools, one per origin (undici's Pool), and the per-origin
// bound on requests waiting for a connection (limits.max_pending_requests).
// Each connection of a pool is tracked (its socket and how many requests it has
// carried), so that an attempt can tell the keep-alive race on a reused
// connection from an origin failure, and a TLS failure from a TCP one.
import { isIP, type Socket } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { buildConnector, Client, Pool, type Dispatcher } from 'undici';
import type { SnapshotOrigin } from '../../shared/snapshot.js';

// An idle pooled connection is closed after this long: shorter than the 5 s
// keep-alive timeout of Node, Apache and uvicorn (nginx keeps 75 s), so the edge
// is rarely the side that reuses a connection the origin is closing at that
// moment; the proxy sends a request caught by that race again (docs/edge-origins.md).
const IDLE_SOCKET_MS = 4000;
// An origin's `Keep-Alive: timeout=N` is honoured N - 1 s (none at all when N is 1 s or less).
const ANNOUNCED_TIMEOUT_MARGIN_MS = 1000;

/** TLS trust for https origins: certificates are always verified, against the system CAs unless `ca` is given. */
export type OriginTls = Pick<SecureContextOptions, 'ca'>;

/** One pooled connection as the attempts on it see it: its current socket and the requests it has carried. */
export type Connection = { socket: Socket | undefined; requests: number };

/**
 * Dispatch options an attempt hands a pool; the pool's client sets `connection` when it takes the
 * request. The attempt sets `refused` when undici refused to build the request (an argument it
 * does not take) while the client was dispatching it.
 */
export type TrackedDispatch = Dispatcher.DispatchOptions & { connection?: Connection; refused?: boolean };

/** A pool and what it was made for: a request for another address, limit or timeout gets a new pool. */
type PoolEntry = { scheme: string; host: string; port: number; maxConnections: number | null; connectTimeoutMs: number; pool: Pool; fresh?: Pool };

/** The TLS names of one origin with a pool of their own, at most (the least recently used one's pool is closed past it). */
export const MAX_TLS_NAMES = 16;

function closePool(entry: PoolEntry): void {
  void entry.pool.close();
  void entry.fresh?.close();
}

function destroyPool(entry: PoolEntry): void {
  void entry.pool.destroy();
  void entry.fresh?.destroy();
}

/** Errors of a connection that failed after its TCP connect, during the TLS handshake. */
const handshakeErrors = new WeakSet<Error>();

/** True when `error` ended a TLS handshake (the TCP connection was made). */
export function failedInHandshake(error: Error): boolean {
  return handshakeErrors.has(error);
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

// A pool's client (one connection): records the socket its connector made and hands the connection to each request it takes.
class TrackedClient extends Client {
  constructor(url: URL, options: Client.Options & { connect: buildConnector.connector }) {
    const connection: Connection = { socket: undefined, requests: 0 };
    const connect = options.connect;
    super(url, { ...options, connect: (connectOptions, callback) => trackConnect(connect, connection, connectOptions, callback) });
    this.connection = connection;
  }

  readonly connection: Connection;

  // A request refused before it was queued leaves the connection as free as it was: answering false (busy) would make
  // the pool wait for a 'drain' this client never emits, and never hand it another request.
  override dispatch(options: TrackedDispatch, handler: Dispatcher.DispatchHandler): boolean {
    options.connection = this.connection;
    return super.dispatch(options, handler) || options.refused === true;
  }
}

// Undici's connector returns the socket it makes (its type says void): the TCP connect is watched
// on it, so that a failure after it, on an https origin, is known to be the TLS handshake's.
function trackConnect(connect: buildConnector.connector, connection: Connection, options: buildConnector.Options, callback: buildConnector.Callback): void {
  let connected = false;
  const made = connect(options, ((error: Error | null, socket: Socket | null) => {
    if (error) {
      if (connected && options.protocol === 'https:') handshakeErrors.add(error);
      return callback(error, null);
    }
    connection.socket = socket!;
    connection.requests = 0;
    callback(null, socket!);
  }) as buildConnector.Callback) as unknown as Socket | undefined;
  made?.once('connect', () => (connected = true));
}

// Field by field, not a key string built per request (the TLS name is the key `entry` is found under).
function madeFor(entry: PoolEntry, origin: SnapshotOrigin, connectTimeoutMs: number): boolean {
  return entry.port === origin.port && entry.host === origin.host && entry.scheme === origin.scheme && entry.maxConnections === origin.limits.max_connections && entry.connectTimeoutMs === connectTimeoutMs;
}

export class OriginPools {
  /** Per origin id, its pools by TLS name ('' for plain http and nameless TLS), the most recently used last. */
  private readonly pools = new Map<string, Map<string, PoolEntry>>();
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly tls: OriginTls = {}) {}

  /**
   * The keep-alive pool of `origin` (at most limits.max_connections connections
   * when set) for requests whose TLS name is `servername` (https origins: a
   * connection is made for one name; an origin addressed by IP has one pool per
   * client host, the MAX_TLS_NAMES most recently used kept); a changed address or
   * setting gets a fresh pool.
   */
  poolFor(origin: SnapshotOrigin, connectTimeoutMs: number, servername: string | undefined): Pool {
    return this.entryOf(origin, connectTimeoutMs, servername).pool;
  }

  /**
   * A pool of `origin` whose requests go out with `reset` (`Connection: close`, a
   * connection of their own, closed after the response): for the one retry after
   * a reused connection turned out closed, which another pooled connection could repeat.
   */
  freshPoolFor(origin: SnapshotOrigin, connectTimeoutMs: number, servername: string | undefined): Pool {
    const entry = this.entryOf(origin, connectTimeoutMs, servername);
    entry.fresh ??= this.createPool(origin, connectTimeoutMs, null);
    return entry.fresh;
  }

  /**
   * Counts a request to `origin` in, or answers false when it would have to wait
   * behind max_pending_requests others for a connection. Without max_connections
   * nothing waits, so nothing is refused.
   */
  admit(origin: SnapshotOrigin): boolean {
    const inFlight = this.inFlight.get(origin.id) ?? 0;
    const { max_connections: connections, max_pending_requests: pending } = origin.limits;
    if (connections !== null && pending !== null && inFlight - connections >= pending) return false;
    this.inFlight.set(origin.id, inFlight + 1);
    return true;
  }

  /** Counts out a request admit let in, once it is finished (response read or failed). */
  release(origin: SnapshotOrigin): void {
    const inFlight = this.inFlight.get(origin.id);
    if (inFlight !== undefined && inFlight > 0) this.inFlight.set(origin.id, inFlight - 1);
  }

  /** Closes every pooled connection (shutdown). */
  close(): void {
    for (const names of this.pools.values()) for (const entry of names.values()) destroyPool(entry);
    this.pools.clear();
  }

  private entryOf(origin: SnapshotOrigin, connectTimeoutMs: number, servername: string | undefined): PoolEntry {
    let names = this.pools.get(origin.id);
    if (!names) this.pools.set(origin.id, (names = new Map()));
    const name = servername ?? '';
    const existing = names.get(name);
    if (existing && madeFor(existing, origin, connectTimeoutMs)) {
      if (names.size > 1) {
        names.delete(name);
        names.set(name, existing);
      }
      return existing;
    }
    // The old pool's requests finish on their connections, which then close.
    if (existing) closePool(existing);
    const maxConnections = origin.limits.max_connections;
    const entry: PoolEntry = { scheme: origin.scheme, host: origin.host, port: origin.port, maxConnections, connectTimeoutMs, pool: this.createPool(origin, connectTimeoutMs, maxConnections) };
    names.delete(name);
    names.set(name, entry);
    if (names.size > MAX_TLS_NAMES) {
      const [oldest, pools] = names.entries().next().value as [string, PoolEntry];
      names.delete(oldest);
      closePool(pools);
    }
    return entry;
  }

  private createPool(origin: SnapshotOrigin, connectTimeoutMs: number, connections: number | null): Pool {
    // An IPv6 address is stored without brackets (socketHost's form); a URL needs them.
    const url = `${origin.scheme}://${isIP(origin.host) === 6 ? `[${origin.host}]` : origin.host}:${origin.port}`;
    return new Pool(url, {
      connections,
      pipelining: 1,
      keepAliveTimeout: IDLE_SOCKET_MS,
      keepAliveTimeoutThreshold: ANNOUNCED_TIMEOUT_MARGIN_MS,
      connectTimeout: connectTimeoutMs,
      connect: origin.scheme === 'https' ? { ca: this.tls.ca } : undefined,
      factory: (clientUrl, options) => new TrackedClient(clientUrl as URL, options as Client.Options & { connect: buildConnector.connector }),
    });
  }
}

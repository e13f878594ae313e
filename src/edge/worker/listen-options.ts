import type { ListenOptions } from 'node:net';

/**
 * Where a worker listens. Each worker takes its own socket of the port (SO_REUSEPORT: the kernel
 * spreads new connections over the workers, and no connection passes through the primary) where
 * the runtime has the option (Node 22.12 and later); older runtimes ignore it, and the cluster
 * primary accepts and hands connections to the workers in turn. Port 0 (any free port) keeps the
 * primary's shared socket, or each worker would be given a port of its own.
 */
export function listenOptions(port: number, host: string): ListenOptions & { reusePort: boolean } {
  return { port, host, reusePort: port !== 0 };
}

import net from 'node:net';

/** A loopback TCP forwarder in front of a server that a test can close (the server looks down) and open again on the same port. */
export class TcpGate {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly targetPort: number,
  ) {}

  static async open(targetPort: number): Promise<TcpGate> {
    const probe = net.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const gate = new TcpGate(port, targetPort);
    await gate.reopen();
    return gate;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Accepts connections again and forwards them. */
  async reopen(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  /** Refuses new connections and cuts the open ones. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

import cluster from 'node:cluster';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { listenOptions } from '../../../src/edge/worker/listen-options.js';

describe('where an edge worker listens', () => {
  it('asks for a socket of its own on a given port, and keeps the shared one for any free port', () => {
    expect(listenOptions(8443, '127.0.0.1')).to.deep.equal({ port: 8443, host: '127.0.0.1', reusePort: true });
    expect(listenOptions(0, '127.0.0.1').reusePort).to.equal(false);
  });

  it('listens on this runtime with the options it is given, as the primary of no cluster', async () => {
    expect(cluster.isPrimary).to.equal(true);
    const probe = http.createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const server = http.createServer((_req, res) => res.end('ok')).listen(listenOptions(port, '127.0.0.1'));
    await once(server, 'listening');
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    server.close();
    expect(body).to.equal('ok');
  });
});

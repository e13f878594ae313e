import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';

const TOKEN = 'cdnedge_e2e-upgrade-token-0123456789abcdef';

// A WebSocket-like origin: accepts every upgrade and echoes each byte back.
async function echoOrigin(): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.end('no upgrade\n'));
  const sockets = new Set<Duplex>();
  server.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function upgradeRequest(host: string, path: string): string {
  return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`;
}

// Sends an upgrade request on a raw socket; resolves with everything received until `until` matches.
function rawUpgrade(port: number, host: string, path: string, until: RegExp, send?: string): Promise<{ text: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(upgradeRequest(host, path)));
    let text = '';
    let sent = false;
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (send && !sent && text.includes('\r\n\r\n')) {
        sent = true;
        socket.write(send);
      }
      if (until.test(text)) resolve({ text, socket });
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, socket }));
  });
}

// Writes an upgrade request and resets the connection at once, without reading anything.
function resetAfterUpgradeRequest(port: number, host: string, path: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(upgradeRequest(host, path));
      socket.resetAndDestroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

// One real core, one real `cdn edge` (two workers) and a real upgrading origin on loopback.
describe('cdn edge passes WebSocket upgrades through', function () {
  this.timeout(60000);
  let core: TestCore;
  let origin: Awaited<ReturnType<typeof echoOrigin>>;
  let edge: EdgeProcess;
  let site: Json;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await echoOrigin();
    site = await createSite(core, 'ws.example', origin.port);
    await core.post(`/api/v1/domains/${site.id}/waf-rules`, { name: 'no admin', match: { paths: [{ kind: 'prefix', value: '/admin' }] }, action: 'block' }, 201);
    await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN });
  });
  after(async () => {
    await edge?.stop();
    await origin?.close();
    await core?.stop();
  });

  it('joins client and origin after the 101 and echoes bytes both ways', async () => {
    const { text, socket } = await rawUpgrade(edge.port, 'www.ws.example', '/chat', /ping-through-the-edge/, 'ping-through-the-edge');
    socket.destroy();
    expect(text).to.match(/^HTTP\/1\.1 101 /);
    expect(text).to.include('ping-through-the-edge');
  });

  it('answers an upgrade the WAF blocks with 403 and never reaches the origin', async () => {
    const { text } = await rawUpgrade(edge.port, 'www.ws.example', '/admin/socket', /\r\n\r\n[\s\S]*$/);
    expect(text).to.match(/^HTTP\/1\.1 403 /);
  });

  it('reports the upgrade in usage (status 101) and the block as a security event', async () => {
    const usage = await eventually('the upgrade usage event', async () => (await core.db.usageEvent.findFirst({ where: { path: '/chat' } })) ?? undefined);
    expect(usage.status).to.equal(101);
    const blocked = await eventually('the blocked upgrade', async () => (await core.db.securityEvent.findFirst({ where: { path: '/admin/socket' } })) ?? undefined);
    expect(blocked.action).to.equal('block');
  });

  it('survives clients that reset right after an upgrade request, whatever the answer', async () => {
    const targets: [string, string][] = [
      ['unknown.example.net', '/'],
      ['www.ws.example', '/admin/x'],
      ['www.ws.example', '/chat'],
    ];
    for (let round = 0; round < 20; round++) {
      await Promise.all(targets.map(([host, path]) => resetAfterUpgradeRequest(edge.port, host, path)));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(edge.output).not.to.include('edge worker exited');
    expect((await edge.request('www.ws.example', '/plain')).status).to.equal(200);
  });
});

// A small edge for the challenge tests: a node:http server on 127.0.0.1 that runs
// the given request phases the way the worker will (the reserved challenge path
// gets only the challenge phase), answers "origin says hello" when no phase
// handled the request, and keeps each request's findings.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ActiveConfig } from '../../../src/edge/config/active-config.js';
import type { SecurityFinding } from '../../../src/edge/pipeline/context.js';
import type { Phase } from '../../../src/edge/pipeline/phase.js';
import { CHALLENGE_PATH } from '../../../src/edge/security/challenge-page.js';
import { canonicalIp } from '../../../src/shared/ip-address.js';
import { contextFor } from '../rules/request-context.js';

/** Test-only: a request may name its client address in this header (every test request comes from loopback). */
export const CLIENT_IP_HEADER = 'x-test-client-ip';

export type TestEdge = { url: string; port: number; findings: SecurityFinding[][]; close: () => Promise<void> };

/** Starts the test edge; `challenge` is the challenge phase, `before` the phases that run ahead of it. */
export async function startTestEdge(config: ActiveConfig, before: Phase[], challenge: Phase, scheme: 'http' | 'https' = 'http'): Promise<TestEdge> {
  const findings: SecurityFinding[][] = [];
  const server = http.createServer(async (req, res) => {
    const ip = String(req.headers[CLIENT_IP_HEADER] ?? canonicalIp(req.socket.remoteAddress ?? '') ?? '');
    const ctx = contextFor(config, req, res, { ip, scheme });
    const phases = ctx.path === CHALLENGE_PATH ? [challenge] : [...before, challenge];
    for (const phase of phases) if (await phase.run(ctx)) break;
    findings.push(ctx.findings);
    const response = ctx.response ?? { status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from(`origin says hello ${ctx.path}`) };
    res.writeHead(response.status, response.headers);
    res.end(response.body as Buffer | null);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    findings,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

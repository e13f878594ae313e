import net from 'node:net';
import tls from 'node:tls';
import http from 'node:http';
import https from 'node:https';

export type ProbeTarget = { host: string; port: number; scheme: 'http' | 'https'; path: string; hostHeader: string };
type Step = { ok: boolean; ms: number; error?: string };
export type ProbeReport = {
  reachable: boolean;
  tcp: Step;
  tls?: Step & { authorized?: boolean; subject?: string; valid_to?: string };
  http?: Step & { status?: number };
};

const elapsed = (started: number) => Math.round(performance.now() - started);

function probeTcp(host: string, port: number, timeoutMs: number): Promise<Step> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const finish = (step: Step) => {
      socket.destroy();
      resolve(step);
    };
    socket.setTimeout(timeoutMs, () => finish({ ok: false, ms: elapsed(started), error: `timed out after ${timeoutMs} ms` }));
    socket.once('connect', () => finish({ ok: true, ms: elapsed(started) }));
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ ok: false, ms: elapsed(started), error: error.code ?? error.message }));
  });
}

function probeTls(target: ProbeTarget, timeoutMs: number): Promise<NonNullable<ProbeReport['tls']>> {
  const started = performance.now();
  const servername = net.isIP(target.hostHeader) ? undefined : target.hostHeader;
  return new Promise((resolve) => {
    const socket = tls.connect({ host: target.host, port: target.port, servername, rejectUnauthorized: false });
    const finish = (step: NonNullable<ProbeReport['tls']>) => {
      socket.destroy();
      resolve(step);
    };
    socket.setTimeout(timeoutMs, () => finish({ ok: false, ms: elapsed(started), error: `timed out after ${timeoutMs} ms` }));
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerCertificate();
      finish({
        ok: true,
        ms: elapsed(started),
        authorized: socket.authorized,
        error: socket.authorized ? undefined : String(socket.authorizationError),
        subject: certificate?.subject ? [certificate.subject.CN].flat().join(', ') : undefined,
        valid_to: certificate?.valid_to,
      });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ ok: false, ms: elapsed(started), error: error.code ?? error.message }));
  });
}

function probeHttp(target: ProbeTarget, timeoutMs: number): Promise<NonNullable<ProbeReport['http']>> {
  const started = performance.now();
  const client = target.scheme === 'https' ? https : http;
  return new Promise((resolve) => {
    const request = client.request({
      host: target.host,
      port: target.port,
      method: 'GET',
      path: target.path,
      headers: { host: target.hostHeader, 'user-agent': 'cdn-origin-check/0.1' },
      rejectUnauthorized: false,
      servername: net.isIP(target.hostHeader) ? undefined : target.hostHeader,
      timeout: timeoutMs,
    });
    request.once('response', (response) => {
      response.resume();
      resolve({ ok: (response.statusCode ?? 0) < 500, ms: elapsed(started), status: response.statusCode });
      request.destroy();
    });
    request.once('timeout', () => request.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    request.once('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, ms: elapsed(started), error: error.code ?? error.message }));
    request.end();
  });
}

/** Probes an origin for real: TCP connect, then TLS handshake (https) and one GET of the check path. Never throws. */
export async function probeOrigin(target: ProbeTarget, timeoutMs: number): Promise<ProbeReport> {
  const tcp = await probeTcp(target.host, target.port, timeoutMs);
  if (!tcp.ok) return { reachable: false, tcp };
  const tlsStep = target.scheme === 'https' ? await probeTls(target, timeoutMs) : undefined;
  if (tlsStep && !tlsStep.ok) return { reachable: false, tcp, tls: tlsStep };
  const httpStep = await probeHttp(target, timeoutMs);
  return { reachable: httpStep.ok, tcp, tls: tlsStep, http: httpStep };
}

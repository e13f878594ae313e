import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import tls, { type PeerCertificate } from 'node:tls';

/** What a TLS handshake came to: the negotiated facts, or the client's error code (an alert shows as ERR_SSL_…_ALERT_…). */
export type Handshake = { ok: true; protocol: string | null; alpn: string | false | null; certificate: PeerCertificate } | { ok: false; code: string; message: string };

export type HandshakeOptions = { port: number; servername?: string; ca?: string; minVersion?: tls.SecureVersion; maxVersion?: tls.SecureVersion };

/** A raw `tls.connect` to 127.0.0.1 with SNI `servername`, verified against `ca` (name included) when given. */
export function handshake(options: HandshakeOptions): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: options.port,
      servername: options.servername,
      ca: options.ca,
      rejectUnauthorized: options.ca !== undefined,
      ALPNProtocols: ['h2', 'http/1.1'],
      minVersion: options.minVersion,
      maxVersion: options.maxVersion,
      checkServerIdentity: options.ca === undefined ? () => undefined : tls.checkServerIdentity,
    });
    socket.once('secureConnect', () => {
      resolve({ ok: true, protocol: socket.getProtocol(), alpn: socket.alpnProtocol, certificate: socket.getPeerCertificate() });
      socket.destroy();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, code: error.code ?? 'unknown', message: error.message }));
  });
}

export type HttpsAnswer = { status: number; headers: IncomingHttpHeaders; text: string; localPort: number | undefined };

/** One HTTPS request to 127.0.0.1:`port` for `host` (SNI, and Host unless `hostHeader` says otherwise), verified against `ca`. */
export function httpsRequest(options: { port: number; host: string; hostHeader?: string; path: string; ca: string; agent?: https.Agent }): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const request = https.request({ host: '127.0.0.1', port: options.port, servername: options.host, headers: { host: options.hostHeader ?? options.host }, path: options.path, ca: options.ca, agent: options.agent ?? false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString(), localPort: response.socket?.localPort }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

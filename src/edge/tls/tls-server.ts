import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import https from 'node:https';
import type { SecureContext, TLSSocket } from 'node:tls';
import { CIPHERS, meetsMinimum, type CertificateTable, type TlsSite } from './certificate-table.js';

const HANDSHAKE_TIMEOUT_MS = 10_000;

const SITE = Symbol('cdn.tls-site');
/** A TLS connection remembers the site whose certificate it presented. */
type SiteSocket = TLSSocket & { [SITE]?: TlsSite };

type SniCallback = (this: TLSSocket, servername: string, callback: (error: Error | null, context?: SecureContext) => void) => void;

/**
 * The edge's TLS listener: TLS 1.2 and 1.3 with AEAD suites, ALPN http/1.1, the certificate picked by
 * SNI from `table` (read at each handshake, so a rebuilt table serves new certificates at once while
 * open connections keep theirs). A name without a certificate, no SNI, or a protocol below the
 * domain's minimum gets no context, so the handshake fails with a handshake_failure alert (an error
 * given to the callback would reset the connection instead). The negotiated protocol is known when
 * Node asks for the context (`this.getProtocol()`), which is how the per-domain minimum is applied.
 */
export function createTlsServer(table: CertificateTable, options: ServerOptions, handler: (req: IncomingMessage, res: ServerResponse) => void): https.Server {
  const SNICallback: SniCallback = function (servername, callback) {
    const site = table.lookup(servername);
    const served = site && meetsMinimum(this.getProtocol(), site.minVersion) ? site : undefined;
    if (served) (this as SiteSocket)[SITE] = served;
    callback(null, served?.context);
  };
  const server = https.createServer(
    {
      ...options,
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.3',
      ciphers: CIPHERS,
      honorCipherOrder: true,
      ALPNProtocols: ['http/1.1'],
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      SNICallback: SNICallback as NonNullable<https.ServerOptions['SNICallback']>,
    },
    handler,
  );
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.isSessionReused()) holdResumedSession(table, socket);
  });
  return server;
}

/**
 * A resumed session skips the SNI callback, and may be resumed under another name than the one it
 * was made for. TLS 1.3 tells the name: it must still have a certificate (it may have been removed
 * since) and accept the session's protocol, else the connection is closed before any request is
 * read; it then counts as presenting that name's site. TLS 1.2 resumption does not tell the name:
 * the first request's host decides, on the same terms (misdirected).
 */
function holdResumedSession(table: CertificateTable, socket: TLSSocket): void {
  if (typeof socket.servername !== 'string') return;
  const site = table.lookup(socket.servername);
  if (!site || !meetsMinimum(socket.getProtocol(), site.minVersion)) return void socket.destroy();
  (socket as SiteSocket)[SITE] = site;
}

/**
 * True when the certificate `socket` presented does not cover `host`: the request names another
 * site than the handshake did (possibly another domain's, with a higher minimum TLS version), so it
 * is answered 421 Misdirected Request (RFC 9110 §15.5.20) rather than served. A connection opened
 * before a certificate was replaced keeps being served for its own name.
 */
export function misdirected(table: CertificateTable, socket: TLSSocket, host: string): boolean {
  if (host === socket.servername) return false;
  const site = (socket as SiteSocket)[SITE];
  if (site) return table.lookup(host)?.context !== site.context;
  const wanted = table.lookup(host);
  if (!wanted || !meetsMinimum(socket.getProtocol(), wanted.minVersion)) return true;
  (socket as SiteSocket)[SITE] = wanted;
  return false;
}

import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import https from 'node:https';
import type { SecureContext, TLSSocket } from 'node:tls';
import { CIPHERS, meetsMinimum, type CertificateTable } from './certificate-table.js';

const HANDSHAKE_TIMEOUT_MS = 10_000;

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
    callback(null, site && meetsMinimum(this.getProtocol(), site.minVersion) ? site.context : undefined);
  };
  return https.createServer(
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
}

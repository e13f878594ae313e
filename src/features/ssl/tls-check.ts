import tls, { type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import type { Db } from '../../db/client.js';
import { ValidationError } from '../../http/errors.js';
import { assertDomainExists } from '../domains/service.js';
import { inPool } from '../edges/service.js';

export type CheckRequest = { hostname: string; edge_id?: string };
type Target = { edge_id: string; address: string; port: number };
type Limits = { freshSeconds: number; timeoutMs: number };

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function checkedHostname(hostname: string, apex: string): string {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name !== apex && !name.endsWith(`.${apex}`)) throw new ValidationError('hostname', `${name} is not ${apex} or a name under it`);
  return name;
}

/** The pool edge to connect to: the one asked for, else the first (by edge id) that reports where its TLS listener is. */
async function targetEdge(db: Db, edgeId: string | undefined, limits: Limits): Promise<Target | undefined> {
  const now = new Date();
  const nodes = (await db.edgeNode.findMany({ where: edgeId ? { edge_id: edgeId } : {}, orderBy: { edge_id: 'asc' } })).filter((node) => inPool(node, limits.freshSeconds, now));
  if (edgeId && nodes.length === 0) throw new ValidationError('edge_id', `edge ${edgeId} is not in the pool`);
  const node = nodes.find((candidate) => candidate.public_ip && candidate.https_port);
  return node ? { edge_id: node.edge_id, address: node.public_ip!, port: node.https_port! } : undefined;
}

// The domain's stored chains: a certificate the edge serves may link up to one of them rather than to a system CA.
async function storedChainCertificates(db: Db, domainId: string): Promise<string[]> {
  const rows = await db.sslCertificate.findMany({ where: { domain_id: domainId, status: 'active' }, select: { chain_pem: true } });
  return rows.flatMap((row) => row.chain_pem?.match(PEM_BLOCK) ?? []);
}

function handshake(target: Target, hostname: string, ca: string[], timeoutMs: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: target.address, port: target.port, servername: hostname, ca, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS handshake within ${timeoutMs} ms`)), timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function namesOf(certificate: DetailedPeerCertificate): string[] {
  return (certificate.subjectaltname ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
}

function seconds(date: string): number {
  return Math.floor(new Date(date).getTime() / 1000);
}

function served(socket: TLSSocket, hostname: string) {
  const certificate = socket.getPeerCertificate(true);
  return {
    protocol: socket.getProtocol(),
    alpn: socket.alpnProtocol || null,
    certificate: {
      hostnames: namesOf(certificate),
      subject: certificate.subject?.CN ?? null,
      issuer: Object.entries(certificate.issuer ?? {}).map(([key, value]) => `${key}=${String(value)}`).join(', '),
      serial: certificate.serialNumber,
      fingerprint_sha256: certificate.fingerprint256,
      not_before: seconds(certificate.valid_from),
      not_after: seconds(certificate.valid_to),
    },
    covers_hostname: tls.checkServerIdentity(hostname, certificate) === undefined,
    chain: { valid: socket.authorized, error: socket.authorized ? null : String(socket.authorizationError ?? 'not verified') },
  };
}

/**
 * POST …/ssl/check: connects by itself to a pool edge's TLS port with SNI `hostname` and reports
 * the certificate that edge actually serves (names, issuer, serial, validity, whether it covers the
 * name and whether its chain verifies against the system CAs or the domain's stored chains), or
 * why it could not (no edge with a TLS port in the pool, refused, timed out, a TLS alert).
 */
export async function checkServedCertificate(db: Db, domainId: string, body: CheckRequest, limits: Limits) {
  const { domain: apex } = await assertDomainExists(db, domainId);
  const hostname = checkedHostname(body.hostname, apex);
  const target = await targetEdge(db, body.edge_id, limits);
  if (!target) return { hostname, edge: null, connected: false, error: 'no edge in the pool reports a public_ip and https_port to connect to' };
  const ca = [...tls.rootCertificates, ...(await storedChainCertificates(db, domainId))];
  let socket: TLSSocket;
  try {
    socket = await handshake(target, hostname, ca, limits.timeoutMs);
  } catch (error) {
    return { hostname, edge: target, connected: false, error: (error as Error).message.split('\n')[0].slice(0, 300) };
  }
  try {
    return { hostname, edge: target, connected: true, error: null, ...served(socket, hostname) };
  } finally {
    socket.destroy();
  }
}

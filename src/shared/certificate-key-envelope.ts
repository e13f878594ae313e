import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { signingKey } from './signing.js';

// How certificate private keys travel from the core to an edge and rest on the edge's disk
// (docs/edge-protocol.md, "Certificate keys"): one JSON envelope, AES-256-GCM under a key derived
// with HKDF-SHA256 from the edge token's signing key, bound to the edge id and snapshot version.
// The edge stores the envelope exactly as received and opens it in memory only.

export const ENVELOPE_FORMAT = 'cdn-edge-keys-1';
const INFO = 'cdn edge certificate keys v1';
const SALT_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The sealed answer of GET /api/v1/edge/certificate-keys (binary fields in base64url). */
export type KeyEnvelope = { format: typeof ENVELOPE_FORMAT; edge_id: string; version: number; salt: string; iv: string; ciphertext: string };

/** Private keys (PEM) by certificate id. */
export type CertificateKeys = Record<string, string>;

export class KeyEnvelopeError extends Error {}

function boundTo(edgeId: string, version: number): Buffer {
  return Buffer.from(`${edgeId}\0${version}`);
}

function envelopeKey(tokenSigningKey: string, salt: Buffer, edgeId: string, version: number): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(tokenSigningKey), salt, Buffer.concat([Buffer.from(`${INFO}\0`), boundTo(edgeId, version)]), 32));
}

/** Seals `keys` for one edge (the core's side): `tokenSigningKey` is the stored hash of the edge's token. */
export function sealKeys(keys: CertificateKeys, tokenSigningKey: string, edgeId: string, version: number): KeyEnvelope {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', envelopeKey(tokenSigningKey, salt, edgeId, version), iv);
  cipher.setAAD(boundTo(edgeId, version));
  const sealed = Buffer.concat([cipher.update(JSON.stringify({ keys })), cipher.final(), cipher.getAuthTag()]);
  return { format: ENVELOPE_FORMAT, edge_id: edgeId, version, salt: salt.toString('base64url'), iv: iv.toString('base64url'), ciphertext: sealed.toString('base64url') };
}

/** Opens an envelope with the edge's own token (the edge's side); throws KeyEnvelopeError when it is not one sealed for this token and edge. */
export function openKeys(envelope: unknown, token: string, edgeId: string): { version: number; keys: CertificateKeys } {
  const value = envelope as Partial<KeyEnvelope> | null;
  if (!value || value.format !== ENVELOPE_FORMAT || typeof value.version !== 'number' || typeof value.salt !== 'string' || typeof value.iv !== 'string' || typeof value.ciphertext !== 'string') {
    throw new KeyEnvelopeError(`not a ${ENVELOPE_FORMAT} envelope`);
  }
  if (value.edge_id !== edgeId) throw new KeyEnvelopeError(`sealed for edge ${String(value.edge_id).slice(0, 128)}, not ${edgeId}`);
  const sealed = Buffer.from(value.ciphertext, 'base64url');
  if (sealed.length < TAG_BYTES) throw new KeyEnvelopeError('the envelope is truncated');
  const decipher = createDecipheriv('aes-256-gcm', envelopeKey(signingKey(token), Buffer.from(value.salt, 'base64url'), edgeId, value.version), Buffer.from(value.iv, 'base64url'));
  decipher.setAAD(boundTo(edgeId, value.version));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new KeyEnvelopeError('the envelope does not open with this edge token');
  }
  const { keys } = JSON.parse(plain.toString('utf8')) as { keys: CertificateKeys };
  return { version: value.version, keys };
}

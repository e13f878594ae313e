// ACME Renewal Information (RFC 9773): when the CA's directory offers `renewalInfo`, the CA says
// in which window a certificate should be renewed; the renewal is placed at a random time in it.
import { X509Certificate } from 'node:crypto';
import acme from 'acme-client';

const AKI_OID = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x23]);

type Tlv = { tag: number; start: number; end: number };

// One DER element at `offset`: its tag, and where its contents start and end.
function tlv(der: Buffer, offset: number): Tlv {
  const tag = der[offset];
  let length = der[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = 0;
    for (let index = 0; index < bytes; index++) length = length * 256 + der[start + index];
    start += bytes;
  }
  return { tag, start, end: start + length };
}

/** The keyIdentifier of a certificate's Authority Key Identifier extension (undefined when it has none). */
export function authorityKeyIdentifier(der: Buffer): Buffer | undefined {
  const at = der.indexOf(AKI_OID);
  if (at < 0) return undefined;
  let element = tlv(der, at + AKI_OID.length);
  if (element.tag === 0x01) element = tlv(der, element.end); // the critical flag
  if (element.tag !== 0x04) return undefined;
  const sequence = tlv(der, element.start);
  if (sequence.tag !== 0x30) return undefined;
  const keyIdentifier = tlv(der, sequence.start);
  return keyIdentifier.tag === 0x80 ? der.subarray(keyIdentifier.start, keyIdentifier.end) : undefined;
}

/** A serial number's DER INTEGER contents from its hex form (a leading zero byte when the high bit is set). */
export function serialBytes(hex: string): Buffer {
  const bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  return bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
}

/** The RFC 9773 certificate identifier: base64url(AKI keyIdentifier) "." base64url(serial). */
export function ariCertificateId(keyIdentifier: Buffer, serial: Buffer): string {
  return `${keyIdentifier.toString('base64url')}.${serial.toString('base64url')}`;
}

/**
 * When the CA suggests renewing `certificatePem`: a random time inside its window (now when the
 * window has passed); undefined when the directory offers no renewalInfo or the answer is unusable.
 */
export async function ariRenewalTime(directoryUrl: string, certificatePem: string, now = new Date()): Promise<Date | undefined> {
  const leaf = new X509Certificate(certificatePem);
  const keyIdentifier = authorityKeyIdentifier(leaf.raw);
  if (!keyIdentifier) return undefined;
  try {
    const directory = (await acme.axios.get(directoryUrl)).data as { renewalInfo?: unknown };
    if (typeof directory.renewalInfo !== 'string') return undefined;
    const answer = (await acme.axios.get(`${directory.renewalInfo.replace(/\/$/, '')}/${ariCertificateId(keyIdentifier, serialBytes(leaf.serialNumber))}`)).data as { suggestedWindow?: { start?: string; end?: string } };
    const start = Date.parse(answer.suggestedWindow?.start ?? '');
    const end = Date.parse(answer.suggestedWindow?.end ?? '');
    if (Number.isNaN(start) || Number.isNaN(end) || end < start) return undefined;
    if (end <= now.getTime()) return now;
    const from = Math.max(start, now.getTime());
    return new Date(from + Math.random() * (end - from));
  } catch {
    return undefined;
  }
}

// ACME Renewal Information (RFC 9773): when the CA's directory offers `renewalInfo`, the CA says
// in which window a certificate should be renewed; the renewal is placed at a random time in it, and
// the CA is asked again as its Retry-After says, since it may move the window (a mass revocation moves
// it to now).
import { X509Certificate } from 'node:crypto';
import acme from 'acme-client';
import { retryAfterSeconds } from './acme-problem.js';

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

/** The RFC 9773 identifier of a PEM certificate; undefined when it does not parse or names no Authority Key Identifier. */
export function certificateIdOf(certificatePem: string): string | undefined {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certificatePem);
  } catch {
    return undefined;
  }
  const keyIdentifier = authorityKeyIdentifier(leaf.raw);
  return keyIdentifier ? ariCertificateId(keyIdentifier, serialBytes(leaf.serialNumber)) : undefined;
}

/** The CA's renewalInfo base URL, when its directory offers one. */
export async function renewalInfoUrl(directoryUrl: string): Promise<string | undefined> {
  const directory = (await acme.axios.get(directoryUrl)).data as { renewalInfo?: unknown };
  return typeof directory.renewalInfo === 'string' ? directory.renewalInfo.replace(/\/$/, '') : undefined;
}

// How long to wait before asking again: what the CA's Retry-After asks, held between a minute and a
// day (RFC 9773 section 4.3), six hours when it says nothing; an hour after a failed check.
const MIN_CHECK_SECONDS = 60;
const MAX_CHECK_SECONDS = 86_400;
const DEFAULT_CHECK_SECONDS = 6 * 3600;
export const FAILED_CHECK_SECONDS = 3600;

function checkAgainAt(retryAfterHeader: unknown, now: Date): Date {
  const asked = retryAfterSeconds(typeof retryAfterHeader === 'string' ? retryAfterHeader : undefined, now) ?? DEFAULT_CHECK_SECONDS;
  return new Date(now.getTime() + Math.min(MAX_CHECK_SECONDS, Math.max(MIN_CHECK_SECONDS, asked)) * 1000);
}

/**
 * When to renew inside a suggested window: `current` when it already lies in it, else a random time
 * in it (now when the window has passed).
 */
export function renewalTimeIn(window: { start: number; end: number }, now: Date, current?: Date): Date {
  const at = current?.getTime();
  if (at !== undefined && at >= window.start && at <= window.end && at >= now.getTime()) return current!;
  if (window.end <= now.getTime()) return now;
  const from = Math.max(window.start, now.getTime());
  return new Date(from + Math.random() * (window.end - from));
}

/**
 * What the CA says of a certificate's renewal: `offered: false` when its directory has no
 * renewalInfo (the two-thirds rule applies and nothing is polled); otherwise when to renew (absent
 * when the answer was unusable or unreachable) and when to ask again.
 */
export type RenewalInfoCheck = { offered: false } | { offered: true; renewAt?: Date; checkAgainAt: Date };

/** Asks the CA's renewalInfo about `certificatePem`; `current` is the renewal time already chosen, kept when still in the window. */
export async function checkRenewalInfo(directoryUrl: string, certificatePem: string, now = new Date(), current?: Date): Promise<RenewalInfoCheck> {
  const failed = { offered: true, checkAgainAt: new Date(now.getTime() + FAILED_CHECK_SECONDS * 1000) } as const;
  const id = certificateIdOf(certificatePem);
  let base: string | undefined;
  try {
    base = await renewalInfoUrl(directoryUrl);
  } catch {
    return failed;
  }
  if (!base || !id) return { offered: false };
  try {
    const response = await acme.axios.get(`${base}/${id}`);
    const answer = response.data as { suggestedWindow?: { start?: string; end?: string } };
    const window = { start: Date.parse(answer.suggestedWindow?.start ?? ''), end: Date.parse(answer.suggestedWindow?.end ?? '') };
    // RFC 9773 section 4.2: a window that ends before it starts is treated as no answer.
    if (Number.isNaN(window.start) || Number.isNaN(window.end) || window.end <= window.start) return failed;
    return { offered: true, renewAt: renewalTimeIn(window, now, current), checkAgainAt: checkAgainAt(response.headers?.['retry-after'], now) };
  } catch {
    return failed;
  }
}

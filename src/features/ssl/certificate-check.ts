import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { ValidationError } from '../../http/errors.js';

// The checks an uploaded certificate passes before anything is stored (docs/ssl.md, "Manual
// certificates"): every refusal names the field and the reason, and none repeats key material.

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[A-Za-z0-9+/=\r\n]+-----END \1-----/g;
const MAX_CHAIN = 10;
const ACCEPTED_CURVES = new Set(['prime256v1', 'secp384r1']);
const MIN_RSA_BITS = 2048;

/** What the API shows of a certificate, read from its leaf. */
export type CertificateFacts = {
  hostnames: string[];
  issuer: string;
  serial: string;
  fingerprint_sha256: string;
  not_before: Date;
  not_after: Date;
};

export type CertificateUpload = { certificate: string; private_key: string; chain?: string };

function pemBlocks(text: string, field: string, label: string): string[] {
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (blocks.some((block) => block[1] !== label)) throw new ValidationError(field, `holds a ${blocks.find((block) => block[1] !== label)![1]} block; expected only ${label} blocks`);
  return blocks.map((block) => block[0]);
}

function parseCertificate(pem: string, field: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new ValidationError(field, 'is not a PEM certificate that parses');
  }
}

function leafCertificate(text: string): X509Certificate {
  const blocks = pemBlocks(text, 'certificate', 'CERTIFICATE');
  if (blocks.length !== 1) throw new ValidationError('certificate', blocks.length === 0 ? 'holds no PEM CERTIFICATE block' : 'must hold the leaf certificate only; put the intermediates in chain');
  return parseCertificate(blocks[0], 'certificate');
}

function chainCertificates(text: string | undefined): X509Certificate[] {
  if (text === undefined || text.trim() === '') return [];
  const blocks = pemBlocks(text, 'chain', 'CERTIFICATE');
  if (blocks.length === 0) throw new ValidationError('chain', 'holds no PEM CERTIFICATE block');
  if (blocks.length > MAX_CHAIN) throw new ValidationError('chain', `holds ${blocks.length} certificates; at most ${MAX_CHAIN}`);
  return blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new ValidationError('chain', `certificate ${index + 1} does not parse`);
    }
  });
}

function privateKey(text: string): KeyObject {
  // `openssl ecparam -genkey` writes the curve's EC PARAMETERS block before the key.
  if ([...text.matchAll(PEM_BLOCK)].filter((block) => block[1] !== 'EC PARAMETERS').length !== 1) throw new ValidationError('private_key', 'must hold exactly one PEM private key');
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch {
    throw new ValidationError('private_key', 'is not an unencrypted PEM private key that parses');
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa' && (details.modulusLength ?? 0) >= MIN_RSA_BITS) return key;
  if (key.asymmetricKeyType === 'ec' && ACCEPTED_CURVES.has(details.namedCurve ?? '')) return key;
  throw new ValidationError('private_key', `is ${describeKey(key)}; accepted are RSA of ${MIN_RSA_BITS} bits or more and ECDSA P-256 or P-384`);
}

function describeKey(key: KeyObject): string {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') return `RSA of ${details.modulusLength} bits`;
  if (key.asymmetricKeyType === 'ec') return `ECDSA on ${details.namedCurve}`;
  return `a key of type ${key.asymmetricKeyType}`;
}

function checkValidity(leaf: X509Certificate, now: Date): void {
  if (new Date(leaf.validFrom) > now) throw new ValidationError('certificate', `is not valid before ${new Date(leaf.validFrom).toISOString()}`);
  if (new Date(leaf.validTo) <= now) throw new ValidationError('certificate', `expired at ${new Date(leaf.validTo).toISOString()}`);
}

// Each certificate is signed by the next one, so the edge can send them in this order.
function checkChainOrder(leaf: X509Certificate, chain: X509Certificate[], now: Date): void {
  const path = [leaf, ...chain];
  for (let index = 1; index < path.length; index++) {
    const [child, parent] = [path[index - 1], path[index]];
    if (!child.checkIssued(parent) || !child.verify(parent.publicKey)) {
      throw new ValidationError('chain', `certificate ${index} (${parent.subject.replace(/\n/g, ', ')}) did not issue ${index === 1 ? 'the certificate' : `chain certificate ${index - 1}`}: the chain must run from the leaf's issuer upwards, in order`);
    }
    if (new Date(parent.validTo) <= now) throw new ValidationError('chain', `certificate ${index} expired at ${new Date(parent.validTo).toISOString()}`);
  }
}

function subjectNames(leaf: X509Certificate): string[] {
  const names = (leaf.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4).toLowerCase());
  return [...new Set(names)];
}

function checkCovers(leaf: X509Certificate, hostnames: string[]): void {
  const uncovered = hostnames.filter((name) => leaf.checkHost(name, { subject: 'never', wildcards: true, singleLabelSubdomains: false }) === undefined);
  if (uncovered.length > 0) throw new ValidationError('certificate', `does not cover ${uncovered.join(', ')}`);
}

/**
 * Checks an upload: the certificate and key parse, the key is accepted and matches, the certificate
 * is valid now, the chain links up in order, and the names cover `hostnames`. Returns its facts.
 */
export function checkCertificateUpload(upload: CertificateUpload, hostnames: string[], now = new Date()): CertificateFacts {
  const leaf = leafCertificate(upload.certificate);
  const key = privateKey(upload.private_key);
  if (!leaf.checkPrivateKey(key)) throw new ValidationError('private_key', 'does not belong to the certificate');
  checkValidity(leaf, now);
  checkChainOrder(leaf, chainCertificates(upload.chain), now);
  checkCovers(leaf, hostnames);
  return {
    hostnames: subjectNames(leaf),
    issuer: leaf.issuer.replace(/\n/g, ', '),
    serial: leaf.serialNumber,
    fingerprint_sha256: leaf.fingerprint256,
    not_before: new Date(leaf.validFrom),
    not_after: new Date(leaf.validTo),
  };
}

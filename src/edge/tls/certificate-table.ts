// The certificates a worker serves, by the names a client may ask for with SNI: built from the active
// snapshot and the keys the agent delivered, off the request path (on activation or new keys).
import { createSecureContext, type SecureContext } from 'node:tls';
import type { CertificateKeys } from '../../shared/certificate-key-envelope.js';
import type { ActiveConfig } from '../config/active-config.js';

/** TLS 1.3's suites (all AEAD), then ECDHE with AEAD only for TLS 1.2. */
export const CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

const TLS_VERSIONS = ['TLSv1.2', 'TLSv1.3'] as const;
type TlsVersion = (typeof TLS_VERSIONS)[number];

/** What a name resolves to: the context to present and the lowest protocol its domain accepts. */
export type TlsSite = { context: SecureContext; minVersion: TlsVersion };

/** The domain's `min_tls_version` as the edge applies it: 1.3, or 1.2 (the edge's own floor) for anything lower. */
function minVersionOf(setting: unknown): TlsVersion {
  return setting === '1.3' ? 'TLSv1.3' : 'TLSv1.2';
}

/** True when `protocol` (TLSSocket.getProtocol()) is at least `min`. */
export function meetsMinimum(protocol: string | null, min: TlsVersion): boolean {
  return TLS_VERSIONS.indexOf(protocol as TlsVersion) >= TLS_VERSIONS.indexOf(min);
}

function belongsTo(name: string, apex: string): boolean {
  return name === apex || name.endsWith(`.${apex}`);
}

/** What /ready shows of a worker's certificates: names served, certificates whose key has not arrived, and those that do not load. */
export type TlsStatus = { names: number; certificates_without_key: string[]; certificates_unusable: string[] };

export class CertificateTable {
  private sites = new Map<string, TlsSite>();
  private withoutKey: string[] = [];
  private unusable: string[] = [];
  /** Contexts by certificate id, kept across rebuilds: an unchanged certificate is not parsed again. */
  private contexts = new Map<string, { pem: string; key: string; context: SecureContext }>();

  /** `onUnusable`: a certificate whose PEM and key do not make a context (its names go unserved). */
  constructor(private readonly onUnusable: (certificateId: string, error: Error) => void = () => undefined) {}

  /**
   * Rebuilds the name table: for every domain whose SSL mode is not `off`, each certificate whose key is known, under each of its
   * names that is the apex or below it (a certificate never answers for another domain's names). A
   * later certificate of a domain takes a name from an earlier one (the snapshot lists them oldest
   * first); a name two domains claim stays with the first (snapshots are sorted by apex).
   */
  update(config: ActiveConfig | undefined, keys: CertificateKeys): void {
    const sites = new Map<string, TlsSite>();
    const owners = new Map<string, string>();
    const contexts = new Map<string, { pem: string; key: string; context: SecureContext }>();
    const withoutKey: string[] = [];
    const unusable: string[] = [];
    for (const domain of config?.domainsById.values() ?? []) {
      // SSL mode off: the domain is served over plain HTTP only.
      if (domain.snapshot.ssl.mode === 'off') continue;
      const minVersion = minVersionOf(domain.snapshot.ssl.min_tls_version);
      for (const certificate of domain.snapshot.certificates ?? []) {
        const key = keys[certificate.id];
        if (!key) {
          withoutKey.push(certificate.id);
          continue;
        }
        const pem = certificate.certificate_pem + (certificate.chain_pem ?? '');
        const entry = this.contextOf(certificate.id, pem, key);
        if (entry instanceof Error) {
          unusable.push(certificate.id);
          this.onUnusable(certificate.id, entry);
          continue;
        }
        contexts.set(certificate.id, entry);
        for (const hostname of certificate.hostnames) {
          const name = hostname.toLowerCase();
          if (!belongsTo(name.startsWith('*.') ? name.slice(2) : name, domain.apex)) continue;
          if ((owners.get(name) ?? domain.id) !== domain.id) continue;
          owners.set(name, domain.id);
          sites.set(name, { context: entry.context, minVersion });
        }
      }
    }
    this.sites = sites;
    this.contexts = contexts;
    this.withoutKey = withoutKey;
    this.unusable = unusable;
  }

  // The context made before for the same PEM and key, or a new one (an Error when they do not load).
  private contextOf(id: string, pem: string, key: string): { pem: string; key: string; context: SecureContext } | Error {
    const known = this.contexts.get(id);
    if (known && known.pem === pem && known.key === key) return known;
    try {
      return { pem, key, context: createSecureContext({ cert: pem, key, ciphers: CIPHERS, honorCipherOrder: true }) };
    } catch (error) {
      return error as Error;
    }
  }

  /** The site for an SNI name: the exact name, else the wildcard one label up. */
  lookup(servername: string): TlsSite | undefined {
    const name = servername.toLowerCase();
    const exact = this.sites.get(name);
    if (exact) return exact;
    const dot = name.indexOf('.');
    return dot > 0 ? this.sites.get(`*${name.slice(dot)}`) : undefined;
  }

  status(): TlsStatus {
    return { names: this.sites.size, certificates_without_key: this.withoutKey, certificates_unusable: this.unusable };
  }
}

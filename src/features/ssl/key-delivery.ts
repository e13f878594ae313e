import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { ConflictError, NotFoundError, UnavailableError } from '../../http/errors.js';
import type { ActiveVersion } from '../../publish/active-version.js';
import { servedVersion } from '../../publish/served-version.js';
import { readSnapshotBytes } from '../../publish/snapshot-store.js';
import { sealKeys, type CertificateKeys, type KeyEnvelope } from '../../shared/certificate-key-envelope.js';
import type { ConfigSnapshot } from '../../shared/snapshot.js';
import { privateKeyContext } from './key-storage.js';
import { SecretKeyError, type SecretBox } from './secret-box.js';

/** The ids of the certificates a stored snapshot version carries; 404 when the version is not stored. */
async function certificateIdsOf(db: Db, version: number): Promise<string[]> {
  const payload = await readSnapshotBytes(db, version);
  if (!payload) throw new NotFoundError('config snapshot', String(version));
  const snapshot = JSON.parse(payload.toString('utf8')) as ConfigSnapshot;
  return snapshot.domains.flatMap((domain) => (domain.certificates ?? []).map((certificate) => certificate.id));
}

// An edge gets the keys of the snapshot it serves: the version the core serves it (the active one,
// or with rollout on its fleet or canary version, docs/rollout.md), or the one it last reported
// serving (an edge restarted from its last-known-good copy). Never those of older versions'
// certificates, which may be replaced but still valid.
async function assertServedVersion(db: Db, activeVersion: ActiveVersion, version: number, edgeId: string): Promise<void> {
  const active = servedVersion(await activeVersion.versions(), edgeId);
  if (version === active) return;
  const node = await db.edgeNode.findUnique({ where: { edge_id: edgeId }, select: { config_version: true } });
  if (node?.config_version === version) return;
  throw new ConflictError('not a version this edge serves', 'version', `version ${version} is neither the active snapshot version (${active ?? 'none'}) nor the version edge ${edgeId} last reported serving`);
}

/**
 * The private keys of the certificates in snapshot `version` (the edge serves exactly those),
 * opened from their sealed storage and sealed again for the asking edge (certificate-key-envelope.ts).
 */
export async function keysForEdge(db: Db, box: SecretBox | undefined, activeVersion: ActiveVersion, version: number, edge: { edgeId: string; tokenHash: string }, log: Logger): Promise<KeyEnvelope> {
  const ids = await certificateIdsOf(db, version);
  await assertServedVersion(db, activeVersion, version, edge.edgeId);
  const keys: CertificateKeys = {};
  if (ids.length > 0) {
    if (!box) throw new UnavailableError('ssl key storage is not configured', 'the core cannot open stored private keys: set CDN_SSL_SECRET_KEY');
    const rows = await db.sslCertificate.findMany({ where: { id: { in: ids }, private_key_encrypted: { not: null } }, select: { id: true, private_key_encrypted: true } });
    const unopened: string[] = [];
    for (const row of rows) {
      try {
        keys[row.id] = box.open(row.private_key_encrypted!, privateKeyContext(row.id)).toString('utf8');
      } catch (error) {
        if (!(error instanceof SecretKeyError)) throw error;
        unopened.push(row.id);
      }
    }
    // The edge serves the others; these names fail their handshakes until the key opens again.
    if (unopened.length > 0) log.error({ certificates: unopened }, 'stored private keys that do not open were left out of an edge\'s keys');
  }
  return sealKeys(keys, edge.tokenHash, edge.edgeId, version);
}

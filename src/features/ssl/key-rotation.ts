import type { Db } from '../../db/client.js';
import { privateKeyContext } from './key-storage.js';
import type { SecretBox } from './secret-box.js';

const BATCH = 100;

/** What one round of re-sealing did: keys moved to the current key, and keys that would not open. */
export type ResealResult = { resealed: number; unreadable: string[] };

/**
 * Re-seals up to 100 stored private keys that an earlier key sealed with the current
 * CDN_SSL_SECRET_KEY, so the earlier key can be retired. Each write is conditional on the value
 * it read, so cores doing this at once never overwrite each other.
 */
export async function resealEarlierKeys(db: Db, box: SecretBox): Promise<ResealResult> {
  const rows = await db.sslCertificate.findMany({
    where: { private_key_encrypted: { not: null }, NOT: { private_key_encrypted: { startsWith: `cdnbox1.${box.keyId}.` } } },
    select: { id: true, private_key_encrypted: true },
    orderBy: { id: 'asc' },
    take: BATCH,
  });
  const result: ResealResult = { resealed: 0, unreadable: [] };
  for (const row of rows) {
    const context = privateKeyContext(row.id);
    let plaintext: Buffer;
    try {
      plaintext = box.open(row.private_key_encrypted!, context);
    } catch {
      result.unreadable.push(row.id);
      continue;
    }
    const { count } = await db.sslCertificate.updateMany({ where: { id: row.id, private_key_encrypted: row.private_key_encrypted }, data: { private_key_encrypted: box.seal(plaintext, context) } });
    result.resealed += count;
  }
  return result;
}

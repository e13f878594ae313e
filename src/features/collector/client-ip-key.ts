import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Config } from '../../config/load.js';

const KEY_NAME = 'client_ip_hash_key';

// The first core to need it stores a random key; every core (and restart) then reads the same one.
const CLAIM_KEY = `
  WITH created AS (
    INSERT INTO installation_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value
  )
  SELECT value FROM created UNION ALL SELECT value FROM installation_secrets WHERE name = $1 LIMIT 1`;

// A core that loses the race to a concurrent first insert sees neither row in its statement's
// snapshot; asking again sees the winner's.
async function installationKey(pool: pg.Pool): Promise<Buffer> {
  for (;;) {
    const { rows } = await pool.query<{ value: string }>(CLAIM_KEY, [KEY_NAME, randomBytes(32).toString('hex')]);
    if (rows[0]) return Buffer.from(rows[0].value, 'hex');
  }
}

/**
 * The key of stored client-IP hashes, read once: CDN_CLIENT_IP_HASH_KEY when set,
 * else a random key this installation made for itself and keeps in the database.
 * A failed read is retried by the next call.
 */
export function clientIpKeyLoader(config: Config, pool: pg.Pool): () => Promise<Buffer> {
  let loading: Promise<Buffer> | undefined;
  return () => {
    if (config.clientIpHashKey) return Promise.resolve(Buffer.from(config.clientIpHashKey));
    loading ??= installationKey(pool).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Config } from '../../config/load.js';
import type { ClientIpPolicy } from './client-ip.js';

const KEY_NAME = 'client_ip_hash_key';

// The first core to need it stores a random key; every core (and restart) then reads the same one.
const CLAIM_KEY = `
  WITH created AS (
    INSERT INTO installation_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value
  )
  SELECT value FROM created UNION ALL SELECT value FROM installation_secrets WHERE name = $1 LIMIT 1`;

// A core that loses the race to a concurrent first insert sees neither row in its statement's
// snapshot; asking a second time sees the winner's.
async function installationKey(pool: pg.Pool): Promise<Buffer> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rows } = await pool.query<{ value: string }>(CLAIM_KEY, [KEY_NAME, randomBytes(32).toString('hex')]);
    if (rows[0]) return Buffer.from(rows[0].value, 'hex');
  }
  throw new Error('the client IP hash key could not be stored nor read');
}

async function keyOf(config: Config, pool: pg.Pool): Promise<Buffer> {
  return config.clientIpHashKey ? Buffer.from(config.clientIpHashKey) : installationKey(pool);
}

/**
 * The collector's client-IP policy, made once: CDN_STORE_FULL_CLIENT_IP, and the key
 * of the hashes (CDN_CLIENT_IP_HASH_KEY when set, else a random key this installation
 * made for itself and keeps in the database). A failed read is retried by the next call.
 */
export function clientIpPolicyLoader(config: Config, pool: pg.Pool): () => Promise<ClientIpPolicy> {
  let loading: Promise<ClientIpPolicy> | undefined;
  return () =>
    (loading ??= keyOf(config, pool)
      .then((key) => ({ storeFull: config.storeFullClientIp, key, recent: new Map<string, string>() }))
      .catch((error: unknown) => {
        loading = undefined;
        throw error;
      }));
}

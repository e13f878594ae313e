import { generateKeyPairSync } from 'node:crypto';
import type acme from 'acme-client';
import type { Db } from '../../../db/client.js';
import { sqlOf, transaction } from '../../../db/sql.js';
import type { SecretBox } from '../secret-box.js';
import { acmeClient } from './acme-connection.js';
import { errorLine } from './acme-problem.js';

const REGISTER_TIMEOUT_MS = 60_000;

/** What a sealed ACME account key is bound to: its directory's account row. */
export function accountKeyContext(directoryUrl: string): string {
  return `acme_accounts.key_encrypted:${directoryUrl}`;
}

function newAccountKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

// The key is made once per directory; of several cores making it at once, the first row stays and all use it.
async function accountKey(db: Db, box: SecretBox, directoryUrl: string, email: string): Promise<{ key: string; accountUrl: string | null }> {
  await db.acmeAccount.createMany({ data: [{ directory_url: directoryUrl, email: email || null, key_encrypted: box.seal(newAccountKey(), accountKeyContext(directoryUrl)) }], skipDuplicates: true });
  const row = await db.acmeAccount.findUniqueOrThrow({ where: { directory_url: directoryUrl } });
  return { key: box.open(row.key_encrypted, accountKeyContext(directoryUrl)).toString('utf8'), accountUrl: row.account_url };
}

// Registering: of several cores at once, one registers (the row locked) and the others find its URL.
async function register(db: Db, directoryUrl: string, key: string, email: string): Promise<string> {
  return transaction(
    db,
    async (tx) => {
      await sqlOf(tx).query('SELECT directory_url FROM acme_accounts WHERE directory_url = $1 FOR UPDATE', [directoryUrl]);
      const row = await tx.acmeAccount.findUniqueOrThrow({ where: { directory_url: directoryUrl }, select: { account_url: true } });
      if (row.account_url) return row.account_url;
      const client = acmeClient(directoryUrl, key);
      const account = await client.createAccount({ termsOfServiceAgreed: true, ...(email ? { contact: [`mailto:${email}`] } : {}) });
      await tx.acmeAccount.update({ where: { directory_url: directoryUrl }, data: { account_url: client.getAccountUrl(), status: account.status ?? 'valid', email: email || null, last_error: null } });
      return client.getAccountUrl();
    },
    { timeout: REGISTER_TIMEOUT_MS },
  );
}

/**
 * A client logged in with the directory's account: the account is registered (terms agreed, the
 * contact address CDN_SSL_ACME_EMAIL) the first time, and its URL kept for every later order.
 */
export async function accountClient(db: Db, box: SecretBox, directoryUrl: string, email: string): Promise<acme.Client> {
  const { key, accountUrl } = await accountKey(db, box, directoryUrl, email);
  if (accountUrl) return acmeClient(directoryUrl, key, accountUrl);
  try {
    return acmeClient(directoryUrl, key, await register(db, directoryUrl, key, email));
  } catch (error) {
    await db.acmeAccount.update({ where: { directory_url: directoryUrl }, data: { last_error: errorLine(error) } });
    throw error;
  }
}

/**
 * Forgets the account URL the CA no longer knows (its key stays), so the next accountClient
 * registers the key again; only that URL, so a registration another core just made stays.
 */
export async function forgetAccount(db: Db, directoryUrl: string, accountUrl: string, reason: string): Promise<void> {
  await db.acmeAccount.updateMany({ where: { directory_url: directoryUrl, account_url: accountUrl }, data: { account_url: null, status: 'pending', last_error: reason } });
}

/** The account as acme-status shows it: never its key. */
export async function accountState(db: Db, directoryUrl: string) {
  if (!directoryUrl) return { directory_url: null, status: 'not_configured', detail: 'set CDN_SSL_ACME_DIRECTORY_URL to order certificates' };
  const row = await db.acmeAccount.findUnique({ where: { directory_url: directoryUrl }, select: { email: true, account_url: true, status: true, last_error: true, created_at: true } });
  if (!row) return { directory_url: directoryUrl, status: 'not_registered', detail: 'registered with the first order' };
  return { directory_url: directoryUrl, status: row.status, email: row.email, account_url: row.account_url, last_error: row.last_error, created_at: Math.floor(row.created_at.getTime() / 1000) };
}

/**
 * Re-seals ACME account keys sealed with an earlier CDN_SSL_SECRET_KEY under the current one (the
 * rotation of docs/ssl.md); each write conditional on the value read. Returns the directories re-sealed
 * and those whose key no configured key opens.
 */
export async function resealAccountKeys(db: Db, box: SecretBox): Promise<{ resealed: number; unreadable: string[] }> {
  const rows = await db.acmeAccount.findMany({ where: { NOT: { key_encrypted: { startsWith: `cdnbox1.${box.keyId}.` } } }, select: { directory_url: true, key_encrypted: true } });
  const result = { resealed: 0, unreadable: [] as string[] };
  for (const row of rows) {
    const context = accountKeyContext(row.directory_url);
    let key: Buffer;
    try {
      key = box.open(row.key_encrypted, context);
    } catch {
      result.unreadable.push(row.directory_url);
      continue;
    }
    const { count } = await db.acmeAccount.updateMany({ where: { directory_url: row.directory_url, key_encrypted: row.key_encrypted }, data: { key_encrypted: box.seal(key, context) } });
    result.resealed += count;
  }
  return result;
}

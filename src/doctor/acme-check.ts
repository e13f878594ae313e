// The ACME directory as the SSL scheduler reaches it: with the HTTPS agent configureAcme gives
// acme-client (CDN_SSL_ACME_CA_FILE trusted beside the system roots), so doctor trusts exactly
// what the scheduler does. The request itself is node's: acme-client's client turns a refused
// connection into a TypeError when it does not retry.
import http from 'node:http';
import https from 'node:https';
import acme from 'acme-client';
import type { Config } from '../config/load.js';
import { configureAcme } from '../features/ssl/acme/acme-connection.js';
import { checkLine, type CheckResult } from './check-result.js';

/** GET `url` as JSON within `timeoutMs`; rejects on a connection or TLS error, a non-200 answer or a body that is not JSON. */
function getJson(url: string, agent: https.Agent, timeoutMs: number): Promise<unknown> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, { agent: url.startsWith('https:') ? agent : undefined, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        if (response.statusCode !== 200) return reject(new Error(`HTTP ${response.statusCode}`));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new Error('the answer is not JSON'));
        }
      });
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

const DIRECTORY_FIELDS = ['newNonce', 'newAccount', 'newOrder'] as const;

function missingFields(directory: unknown): string[] {
  const fields = (directory ?? {}) as Record<string, unknown>;
  return DIRECTORY_FIELDS.filter((field) => typeof fields[field] !== 'string');
}

/** `acme`: the directory at CDN_SSL_ACME_DIRECTORY_URL answers as an ACME v2 directory, and jobs can run (CDN_SSL_SECRET_KEY set). */
export async function acmeCheck(config: Config, timeoutMs: number): Promise<CheckResult> {
  const url = config.sslAcmeDirectoryUrl;
  if (!url) return checkLine('acme', 'skip', 'CDN_SSL_ACME_DIRECTORY_URL is not set: no certificate is ordered', 'set it to order certificates (docs/ssl.md; Let\'s Encrypt: https://acme-v02.api.letsencrypt.org/directory)');
  let directory: unknown;
  try {
    configureAcme(config.sslAcmeCaFile);
    directory = await getJson(url, acme.axios.defaults.httpsAgent as https.Agent, timeoutMs);
  } catch (error) {
    return checkLine('acme', 'fail', `no directory at ${url}: ${(error as Error).message}`, 'check CDN_SSL_ACME_DIRECTORY_URL, and CDN_SSL_ACME_CA_FILE when the CA has a private root');
  }
  const missing = missingFields(directory);
  if (missing.length) return checkLine('acme', 'fail', `${url} answers, but not as an ACME directory (no ${missing.join(', ')})`, 'set CDN_SSL_ACME_DIRECTORY_URL to the directory URL itself (Let\'s Encrypt\'s ends in /directory)');
  if (!config.sslSecretKey) return checkLine('acme', 'fail', `the directory at ${url} answers, but no certificate is ordered without CDN_SSL_SECRET_KEY`, 'set CDN_SSL_SECRET_KEY (see the secrets line)');
  return checkLine('acme', 'ok', `the directory at ${url} answers`);
}

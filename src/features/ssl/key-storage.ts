import type { Config } from '../../config/load.js';
import { HttpError } from '../../http/errors.js';
import { parseSecretKey, SecretBox } from './secret-box.js';

/** The box that seals stored SSL keys, from CDN_SSL_SECRET_KEY (and earlier keys still read); none when unset. */
export function secretBoxOf(config: Pick<Config, 'sslSecretKey' | 'sslSecretKeyPrevious'>): SecretBox | undefined {
  if (!config.sslSecretKey) return undefined;
  const earlier = (config.sslSecretKeyPrevious ?? '')
    .split(',')
    .filter((text) => text.trim() !== '')
    .map((text) => parseSecretKey(text, 'CDN_SSL_SECRET_KEY_PREVIOUS'));
  return new SecretBox(parseSecretKey(config.sslSecretKey, 'CDN_SSL_SECRET_KEY'), earlier);
}

/** 409 when a request would store a private key and no key to seal it with is configured. */
export function requireSecretBox(box: SecretBox | undefined): SecretBox {
  if (box) return box;
  throw new HttpError(409, 'ssl key storage is not configured', 'private_key', 'the core stores no private key unencrypted: set CDN_SSL_SECRET_KEY to the base64 of 32 random bytes (openssl rand -base64 32) on every core');
}

/** What a sealed private key is bound to: its certificate row. */
export function privateKeyContext(certificateId: string): string {
  return `ssl_certificates.private_key:${certificateId}`;
}

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Authenticated encryption of the secrets the core stores (certificate private keys, the ACME account
// key) under CDN_SSL_SECRET_KEY. A sealed value names the key that sealed it, so a key can be replaced
// while values sealed under the old one are still read (docs/ssl.md, "Rotating the key").

const FORMAT = 'cdnbox1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key from its configured form: the base64 of exactly 32 random bytes (`openssl rand -base64 32`). */
export type SecretKey = { id: string; bytes: Buffer };

export class SecretKeyError extends Error {}

/** Parses one configured key, or says what is wrong with it (never echoing the value). */
export function parseSecretKey(text: string, variable: string): SecretKey {
  const trimmed = text.trim();
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (bytes.length !== KEY_BYTES) throw new SecretKeyError(`${variable} must be the base64 of 32 random bytes (openssl rand -base64 32)`);
  return { id: keyId(bytes), bytes };
}

// Derived from the key, so the id is the same on every core that has the key and reveals nothing of it.
function keyId(bytes: Buffer): string {
  return createHash('sha256').update('cdn-ssl-secret-key-id\0').update(bytes).digest('hex').slice(0, 16);
}

/** Seals with the current key and unseals with it or any earlier key still configured. */
export class SecretBox {
  private readonly byId: Map<string, SecretKey>;

  constructor(
    private readonly current: SecretKey,
    earlier: SecretKey[] = [],
  ) {
    this.byId = new Map([...earlier, current].map((key) => [key.id, key]));
  }

  /** The id of the key new values are sealed with. */
  get keyId(): string {
    return this.current.id;
  }

  /**
   * Encrypts `plaintext`, bound to `context` (what the value is and whose: a value moved to another
   * row or column no longer opens).
   */
  seal(plaintext: string | Buffer, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.bytes, iv);
    cipher.setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return [FORMAT, this.current.id, iv.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** Decrypts a sealed value; throws when its key is not configured or the value or context was altered. */
  open(value: string, context: string): Buffer {
    const [format, id, iv, sealed, ...rest] = value.split('.');
    if (format !== FORMAT || !id || !iv || !sealed || rest.length > 0) throw new SecretKeyError('the stored secret is not in a format this version reads');
    const key = this.byId.get(id);
    if (!key) throw new SecretKeyError(`the stored secret was sealed with key ${id}, which is neither CDN_SSL_SECRET_KEY nor one of CDN_SSL_SECRET_KEY_PREVIOUS`);
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < TAG_BYTES) throw new SecretKeyError('the stored secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new SecretKeyError('the stored secret does not open: it was altered, or belongs to another record');
    }
  }

  /** Whether a sealed value was sealed with an earlier key (rotation re-seals those). */
  sealedWithEarlierKey(value: string): boolean {
    return value.split('.')[1] !== this.current.id;
  }
}

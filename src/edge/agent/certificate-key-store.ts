// The private keys of the certificates this edge serves. Fetched from the core over the signed
// channel (GET /api/v1/edge/certificate-keys) as an envelope sealed for this edge's token, stored
// on disk exactly as received (so only encrypted), and opened in memory only. At start the envelope
// on disk is opened, so an edge restarted while the core is down still serves TLS.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { openKeys, type CertificateKeys } from '../../shared/certificate-key-envelope.js';
import { describeAnswer, type CoreClient } from './core-client.js';
import { replaceFileDurably } from './durable-file.js';
import type { PulledSnapshot } from './snapshot-check.js';

const KEYS_PATH = '/api/v1/edge/certificate-keys';

/** Where the sealed envelope is kept under the edge data directory. */
export function certificateKeysPath(dataDir: string): string {
  return path.join(dataDir, 'tls', 'certificate-keys.json');
}

/** The ids of the certificates a snapshot carries. */
function certificateIds(pulled: PulledSnapshot): string[] {
  return pulled.snapshot.domains.flatMap((domain) => (domain.certificates ?? []).map((certificate) => certificate.id));
}

export type CertificateKeyStoreOptions = { client: CoreClient; token: string; dataDir: string; logger: Logger };

export class CertificateKeyStore {
  private keys: CertificateKeys = {};
  /** The last fetch failure, logged once until it changes or a fetch works. */
  private lastError: string | undefined;

  constructor(private readonly options: CertificateKeyStoreOptions) {}

  /** Opens the envelope on disk, if any; one that does not open (another token, altered) is ignored and logged. */
  async load(): Promise<void> {
    const text = await readFile(certificateKeysPath(this.options.dataDir), 'utf8').catch(() => undefined);
    if (text === undefined) return;
    try {
      this.keys = openKeys(JSON.parse(text), this.options.token, this.options.client.edgeId).keys;
    } catch (error) {
      this.options.logger.warn({ error: (error as Error).message }, 'ignoring the certificate keys on disk');
    }
  }

  /**
   * The keys of every certificate in `pulled`: from memory when all are known, else fetched for its
   * version (and saved). Resolves with what it has when the core cannot be asked; `complete` says
   * whether every certificate has its key.
   */
  async keysFor(pulled: PulledSnapshot): Promise<{ keys: CertificateKeys; complete: boolean }> {
    const ids = certificateIds(pulled);
    if (ids.some((id) => this.keys[id] === undefined)) await this.fetch(pulled.version);
    const keys: CertificateKeys = {};
    for (const id of ids) if (this.keys[id] !== undefined) keys[id] = this.keys[id];
    return { keys, complete: Object.keys(keys).length === ids.length };
  }

  private async fetch(version: number): Promise<void> {
    try {
      const answer = await this.options.client.send('GET', `${KEYS_PATH}?version=${version}`);
      if (answer.status !== 200) throw new Error(`core answered ${describeAnswer(answer)}`);
      const envelope = answer.json<{ data: unknown }>().data;
      const opened = openKeys(envelope, this.options.token, this.options.client.edgeId);
      await this.save(JSON.stringify(envelope));
      this.keys = opened.keys;
      if (this.lastError !== undefined) this.options.logger.info({ version }, 'certificate keys fetched again');
      this.lastError = undefined;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError) this.options.logger.warn({ version, error: message }, 'could not fetch the certificate keys; names without a key fail their TLS handshakes');
      this.lastError = message;
    }
  }

  // Atomically and durably, like the last-known-good snapshot: a crash leaves the old envelope or the new one.
  private async save(text: string): Promise<void> {
    await replaceFileDurably(certificateKeysPath(this.options.dataDir), text);
  }
}

import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import maxmind, { type Reader, type Response } from 'maxmind';
import type { Logger } from 'pino';
import { isCountry } from '../../shared/geo/regions.js';

const LOOKUP_CACHE = 10000;
/** Answers remembered per address (the tree walk costs a few µs); forgotten all at once when full or on reload. */
const MEMO_SIZE = 50000;
const RELOAD_CHECK_MS = 2000;

/** The CC0 country database the edge uses when CDN_EDGE_GEOIP_FILE is empty. */
export function defaultCountryDatabase(): string {
  return createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
}

type CountryRecord = { country_code?: unknown; country?: { iso_code?: unknown } };

// ip-location-db files carry {country_code}; MaxMind's GeoLite2/GeoIP2 Country carry {country: {iso_code}}.
function countryOf(record: CountryRecord | null): string | undefined {
  const code = record?.country_code ?? record?.country?.iso_code;
  return typeof code === 'string' && isCountry(code.toUpperCase()) ? code.toUpperCase() : undefined;
}

/**
 * A MaxMind DB country file, looked up synchronously (with an LRU cache in
 * front). The file is checked every 2 s; a changed one is read and swapped in
 * off the request path, and one that cannot be read keeps the old reader.
 */
export class CountryDatabase {
  private reader: Reader<Response>;
  private version: string;
  private readonly timer: NodeJS.Timeout;
  private memo = new Map<string, string | undefined>();

  private constructor(
    readonly file: string,
    reader: Reader<Response>,
    version: string,
    private readonly logger: Logger,
  ) {
    this.reader = reader;
    this.version = version;
    this.timer = setInterval(() => void this.reloadIfChanged(), RELOAD_CHECK_MS);
    this.timer.unref();
  }

  /** Opens `file` (the default database when empty); throws with the file's name when it is not a MaxMind DB. */
  static async open(file: string, logger: Logger): Promise<CountryDatabase> {
    const path = file || defaultCountryDatabase();
    const { reader, version } = await CountryDatabase.read(path);
    return new CountryDatabase(path, reader, version, logger);
  }

  private static async read(path: string): Promise<{ reader: Reader<Response>; version: string }> {
    const info = await stat(path);
    try {
      return { reader: await maxmind.open<Response>(path, { cache: { max: LOOKUP_CACHE } }), version: `${info.size}:${info.mtimeMs}:${info.ino}` };
    } catch (error) {
      throw new Error(`${path} is not a MaxMind DB file: ${(error as Error).message}`);
    }
  }

  /** The country of an address, or undefined (unknown address, private range, not in the file). */
  lookup(ip: string): string | undefined {
    const known = this.memo.get(ip);
    if (known !== undefined || this.memo.has(ip)) return known;
    let country: string | undefined;
    try {
      country = countryOf(this.reader.get(ip) as CountryRecord | null);
    } catch {
      country = undefined;
    }
    if (this.memo.size >= MEMO_SIZE) this.memo = new Map();
    this.memo.set(ip, country);
    return country;
  }

  /** Reads the file again when its size, time or inode changed; returns whether a new reader is in use. */
  async reloadIfChanged(): Promise<boolean> {
    try {
      const info = await stat(this.file);
      if (`${info.size}:${info.mtimeMs}:${info.ino}` === this.version) return false;
      const next = await CountryDatabase.read(this.file);
      this.reader = next.reader;
      this.version = next.version;
      this.memo = new Map();
      this.logger.info({ file: this.file }, 'country database reloaded');
      return true;
    } catch (error) {
      this.logger.warn({ err: error, file: this.file }, 'country database not reloaded; keeping the one in use');
      return false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

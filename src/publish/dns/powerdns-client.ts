// A client of the PowerDNS Authoritative HTTP API (/api/v1/servers/<id>/...):
// the calls DNS publishing needs, each with a timeout. A 4xx answer is returned
// at once and never retried (the request itself is wrong); a failed connection,
// a timeout, 429 and 5xx are retried with exponential backoff and full jitter,
// a bounded number of times (SPEC.md, Errors).

/** One record of an RRset as PowerDNS stores it (content in zone-file presentation format). */
export type PowerDnsRecord = { content: string; disabled: boolean };
export type PowerDnsRrset = { name: string; type: string; ttl: number; records: PowerDnsRecord[] };
export type RrsetChange = { name: string; type: string; changetype: 'REPLACE' | 'DELETE'; ttl?: number; records?: PowerDnsRecord[] };
export type PowerDnsZone = { id: string; name: string; kind: string; serial: number; account: string; rrsets: PowerDnsRrset[] };
export type PowerDnsZoneSummary = { id: string; name: string; account: string; serial: number };
export type PowerDnsServer = { id: string; daemon_type: string; version: string };
export type NewZone = { name: string; account: string; rrsets: PowerDnsRrset[] };

export type PowerDnsOptions = {
  /** Base URL of the API (`http://host:port`), without /api/v1. */
  url: string;
  apiKey: string;
  serverId: string;
  timeoutMs: number;
  /** Attempts of one call, the first included. */
  maxAttempts: number;
  /** Backoff before retry n (1-based): a random delay up to min(maxMs, firstMs × 2^(n−1)). */
  backoff?: { firstMs: number; maxMs: number };
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
};

const DEFAULT_BACKOFF = { firstMs: 200, maxMs: 5000 };
/** How much of an error body is kept in a message. */
const MAX_DETAIL = 500;

/** A failed call: `status` is the HTTP status (null when no answer came), `retryable` whether another attempt could succeed. */
export class PowerDnsError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly attempts: number,
  ) {
    super(message);
  }
}

function retryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

async function errorDetail(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error.slice(0, MAX_DETAIL);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, MAX_DETAIL);
}

/** Seconds of a Retry-After header (the delta form), or undefined. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  return value && /^\d{1,6}$/.test(value) ? Number(value) * 1000 : undefined;
}

/** The zone id PowerDNS uses in paths: the absolute name. */
export function zoneId(zone: string): string {
  return encodeURIComponent(zone.endsWith('.') ? zone : `${zone}.`);
}

export class PowerDnsClient {
  private readonly base: string;
  private readonly backoff: { firstMs: number; maxMs: number };
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly options: PowerDnsOptions) {
    this.base = `${options.url.replace(/\/+$/, '')}/api/v1/servers/${encodeURIComponent(options.serverId)}`;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
  }

  /** The server's own description (id, daemon type, version). */
  async server(): Promise<PowerDnsServer> {
    return (await this.call('GET', '', undefined, [200])).json as PowerDnsServer;
  }

  /** Every zone of the server, without records. */
  async zones(): Promise<PowerDnsZoneSummary[]> {
    return (await this.call('GET', '/zones', undefined, [200])).json as PowerDnsZoneSummary[];
  }

  /** The zone with its RRsets, or null when the server has no such zone. */
  async zone(name: string): Promise<PowerDnsZone | null> {
    const answer = await this.call('GET', `/zones/${zoneId(name)}`, undefined, [200, 404]);
    return answer.status === 404 ? null : (answer.json as PowerDnsZone);
  }

  /** Creates a native zone with its RRsets (the NS RRset among them); the serial follows SOA-EDIT-API DEFAULT from then on. */
  async createZone(zone: NewZone): Promise<void> {
    const body = { name: zone.name, kind: 'Native', account: zone.account, soa_edit_api: 'DEFAULT', nameservers: [], rrsets: zone.rrsets };
    await this.call('POST', '/zones', body, [201]);
  }

  /** Applies RRset changes to a zone in one PATCH (PowerDNS applies them in one transaction). */
  async patchZone(name: string, rrsets: RrsetChange[]): Promise<void> {
    await this.call('PATCH', `/zones/${zoneId(name)}`, { rrsets }, [204]);
  }

  /**
   * Drops what PowerDNS's caches hold for exactly `name` (all types; answers and refusals alike).
   * A zone created through the API does not clear them: a name asked for before its zone existed
   * would stay refused for the cache's lifetime.
   */
  async flushCache(name: string): Promise<void> {
    await this.call('PUT', `/cache/flush?domain=${zoneId(name)}`, undefined, [200]);
  }

  /** Deletes a zone; a zone already gone is no error. */
  async deleteZone(name: string): Promise<void> {
    await this.call('DELETE', `/zones/${zoneId(name)}`, undefined, [204, 404]);
  }

  private async call(method: string, path: string, body: unknown, expected: number[]): Promise<{ status: number; json: unknown }> {
    const what = `${method} ${path || '/'}`;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${this.base}${path}`, {
          method,
          headers: { 'x-api-key': this.options.apiKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
      } catch (error) {
        if (attempt >= this.options.maxAttempts) throw new PowerDnsError(`${what}: ${this.noAnswer(error)}`, null, true, attempt);
        await this.sleep(this.delay(attempt));
        continue;
      }
      if (expected.includes(response.status)) {
        const text = await response.text();
        const json = response.status === 200 || response.status === 201 ? (text ? JSON.parse(text) : undefined) : undefined;
        return { status: response.status, json };
      }
      const detail = await errorDetail(response);
      const retryable = retryableStatus(response.status);
      if (!retryable || attempt >= this.options.maxAttempts) throw new PowerDnsError(`${what}: ${response.status} ${detail}`.trim(), response.status, retryable, attempt);
      await this.sleep(Math.min(this.backoff.maxMs, retryAfterMs(response) ?? this.delay(attempt)));
    }
  }

  // Why no answer came: the timeout, or fetch's error with its cause's code (ECONNREFUSED…).
  private noAnswer(error: unknown): string {
    const failure = error as Error & { cause?: { code?: string } };
    if (failure.name === 'TimeoutError') return `no answer within ${this.options.timeoutMs} ms`;
    return failure.cause?.code ? `${failure.message} (${failure.cause.code})` : failure.message;
  }

  // Full jitter (AWS architecture blog, "Exponential Backoff and Jitter"): spreads the retries of many zones apart.
  private delay(attempt: number): number {
    return Math.floor(this.random() * Math.min(this.backoff.maxMs, this.backoff.firstMs * 2 ** (attempt - 1)));
  }
}

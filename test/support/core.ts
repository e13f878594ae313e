import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startCore, type RunningCore } from '../../src/core/start.js';
import { createTestDatabase, dropTestDatabase } from './database.js';

export type Json = any;
type CallOptions = { token?: string; headers?: Record<string, string>; rawBody?: string };

/** A core running in-process on a fresh database, with a small HTTP client whose calls assert the expected status. */
export class TestCore {
  token: string | undefined;

  private constructor(
    readonly core: RunningCore,
    readonly databaseUrl: string,
  ) {}

  /** `logger`: where the core logs (nowhere by default). */
  static async start(env: Record<string, string> = {}, logger = pino({ level: 'silent' })): Promise<TestCore> {
    const databaseUrl = await createTestDatabase();
    // The background publisher is off unless a suite turns it on, so suites that inspect the dirty state stay deterministic.
    const config = loadConfig({ CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'silent', CDN_PUBLISH_ENABLED: 'false', DATABASE_URL: databaseUrl, ...env });
    const core = await startCore(config, logger);
    return new TestCore(core, databaseUrl);
  }

  get url(): string {
    return this.core.url;
  }

  get db() {
    return this.core.connection.prisma;
  }

  async stop(): Promise<void> {
    await this.core.stop();
    await dropTestDatabase(this.databaseUrl);
  }

  /** Sends a request and asserts `status`; returns the parsed JSON body (or undefined when there is none). */
  async call(method: string, path: string, body: unknown, status: number, options: CallOptions = {}): Promise<Json> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token ?? this.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined = options.rawBody;
    if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.url}${path}`, { method, headers, body: payload });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    expect(response.status, `${method} ${path} answered ${response.status}: ${text}`).to.equal(status);
    return parsed;
  }

  get(path: string, status = 200, options?: CallOptions) {
    return this.call('GET', path, undefined, status, options);
  }
  post(path: string, body: unknown, status = 200, options?: CallOptions) {
    return this.call('POST', path, body, status, options);
  }
  patch(path: string, body: unknown, status = 200, options?: CallOptions) {
    return this.call('PATCH', path, body, status, options);
  }
  put(path: string, body: unknown, status = 200, options?: CallOptions) {
    return this.call('PUT', path, body, status, options);
  }
  delete(path: string, status = 200, options?: CallOptions) {
    return this.call('DELETE', path, undefined, status, options);
  }

  /** Creates a domain and returns its record. */
  async createDomain(domain: string, extra: Record<string, unknown> = {}): Promise<Json> {
    return (await this.post('/api/v1/domains', { domain, ...extra }, 201)).data;
  }

  /** Counts rows of every table a bad request must leave untouched. */
  async rowCounts(): Promise<Record<string, number>> {
    const db = this.db;
    return {
      domains: await db.domain.count(),
      dns_records: await db.dnsRecord.count(),
      origins: await db.origin.count(),
      audit_events: await db.auditEvent.count(),
      admin_users: await db.adminUser.count(),
    };
  }
}

// Active domains of bench:onboard's shape (8 DNS records, 4 of them proxied, and 2 origins each),
// inserted straight into a migrated database with SQL: shared by bench:snapshot-change,
// bench:propagation and the 10,000-domain publish test.
import type pg from 'pg';

// bench:onboard's 8 records: type, name, content, proxied.
const RECORDS = [
  ['A', '@', '192.0.2.10', true],
  ['CNAME', 'www', 'apex', true],
  ['A', 'api', '192.0.2.11', true],
  ['A', 'static', '192.0.2.12', true],
  ['AAAA', 'v6', '2001:db8::10', false],
  ['MX', '@', '10 mail', false],
  ['A', 'mail', '192.0.2.25', false],
  ['TXT', '@', 'v=spf1 mx -all', false],
] as const;

/** The name of the n-th domain (1-based). */
export const onboardDomain = (n: number) => `onboard-${n}.example`;

/**
 * Inserts `count` active domains `onboard-1.example`… with their records and origins. Their
 * delegation counts as checked just now, so a running core's scheduled delegation check does not
 * find these made-up domains undelegated and withdraw them during a benchmark.
 */
export async function insertOnboardDomains(pool: pg.Pool, count: number): Promise<void> {
  await pool.query(`INSERT INTO domains (domain, name, zone_name, status, nameservers_checked_at, updated_at) SELECT 'onboard-' || n || '.example', 'onboard-' || n || '.example', 'onboard-' || n || '.example', 'active', now(), now() FROM generate_series(1, $1) n`, [count]);
  for (const [type, name, content, proxied] of RECORDS) {
    await pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT d.id, $1, $2, $3, encode(sha256(convert_to($3, 'UTF8')), 'hex'), $4, now() FROM domains d`, [type, name, content, proxied]);
  }
  await pool.query(`INSERT INTO origins (domain_id, host, port, role, updated_at) SELECT d.id, 'origin-a.' || d.domain, 443, 'primary', now() FROM domains d`);
  await pool.query(`INSERT INTO origins (domain_id, host, port, role, updated_at) SELECT d.id, 'origin-b.' || d.domain, 443, 'backup', now() FROM domains d`);
}

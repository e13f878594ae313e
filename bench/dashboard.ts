// npm run bench:dashboard — the dashboard's first load and its size. Loads 1,000 domains (5 records
// each) into a fresh database, starts `cdn core` as its own process, and opens the overview in
// Debian's Chromium with a cold cache (a new browser context each round, an admin session already
// in the tab): prints the time from navigation until the overview shows its totals, warnings and runs,
// and the bytes of JavaScript and CSS the page loaded, raw and gzipped.
// Targets (issue #14): first load under 1 s; shipped JavaScript under 300 KB gzipped.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { migrate } from '../src/db/migrator.js';
import { DASHBOARD_DIR } from '../src/http/dashboard.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';
import { startCoreProcess } from './core-process.js';

const DOMAINS = 1000;
const ROUNDS = 9;
const ADMIN = { username: 'bench-admin', password: 'bench-admin-password' };

async function loadData(url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await migrate(pool);
  await pool.query(
    `INSERT INTO domains (domain, name, zone_name, updated_at)
     SELECT 'bench' || n || '.example', 'bench' || n || '.example', 'bench' || n || '.example', now() FROM generate_series(1, $1) AS n`,
    [DOMAINS],
  );
  await pool.query(
    `INSERT INTO dns_records (domain_id, type, name, content, content_digest, updated_at)
     SELECT d.id, 'A', 'host' || r, '192.0.2.' || r, encode(sha256(convert_to('192.0.2.' || r, 'UTF8')), 'hex'), now() FROM domains d, generate_series(1, 5) AS r`,
  );
  await pool.end();
}

async function shippedBytes(): Promise<{ file: string; raw: number; gzipped: number }[]> {
  const html = await readFile(path.join(DASHBOARD_DIR, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((match) => match[1]);
  return Promise.all(files.map(async (file) => {
    const bytes = await readFile(path.join(DASHBOARD_DIR, file));
    return { file, raw: bytes.length, gzipped: gzipSync(bytes).length };
  }));
}

const url = await createTestDatabase();
await loadData(url);
const core = await startCoreProcess(url, { CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const login = await (await fetch(`${core.base}/api/v1/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) })).json() as { data: { token: string; expires_at: number } };
  const session = JSON.stringify({ token: login.data.token, username: ADMIN.username, expires_at: login.data.expires_at });
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((value) => sessionStorage.setItem('cdn.session', value), session);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(`${core.base}/`);
    // Shown: the totals, the warnings (or "No warnings.") and the runs (here none yet).
    await page.locator('.totals').waitFor();
    await page.locator('.warnings li, p.empty:text("No warnings.")').first().waitFor();
    await page.getByText('No GitOps runs yet').waitFor();
    times.push(performance.now() - started);
    await context.close();
  }
  times.sort((a, b) => a - b);
  console.log(`first load of the overview, cold cache, ${DOMAINS} domains: median ${times[Math.floor(ROUNDS / 2)].toFixed(0)} ms, worst ${times.at(-1)!.toFixed(0)} ms (${ROUNDS} rounds: ${times.map((time) => time.toFixed(0)).join(', ')} ms)`);
  const sizes = await shippedBytes();
  for (const size of sizes) console.log(`${size.file.padEnd(36)} ${String(size.raw).padStart(8)} B  ${String(size.gzipped).padStart(7)} B gzipped`);
  const script = sizes.filter((size) => size.file.endsWith('.js')).reduce((sum, size) => sum + size.gzipped, 0);
  console.log(`shipped JavaScript: ${(script / 1024).toFixed(1)} KB gzipped (target under 300 KB)`);
} finally {
  await browser.close();
  await core.stop();
  await dropTestDatabase(url);
  await stopSharedServer();
}

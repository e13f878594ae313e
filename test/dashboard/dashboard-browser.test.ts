import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config/load.js';
import { publishOnce } from '../../src/publish/publisher.js';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore, type Json } from '../support/core.js';
import { seriousViolations } from '../support/dashboard-browser.js';

const ADMIN = { username: 'dashboard-admin', password: 'dashboard-password-1' };
const EDGE_TOKEN = 'cdnedge_dashboard-tests-token-0123456789';
const SNAPSHOT_DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};
const SCREENSHOTS = new URL('../../test-output/dashboard', import.meta.url).pathname;
describe('the browser dashboard in Chromium', function () {
  this.timeout(120000);
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  // Opens a view, waits for its heading, checks it with axe and saves a screenshot at both widths.
  async function visit(url: string, heading: string, name: string) {
    await page.goto(`${core.url}${url}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page), `${url} at 1280 px`).to.deep.equal([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await seriousViolations(page), `${url} at 390 px`).to.deep.equal([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${url} fits 390 px`).to.be.at.most(390);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-390.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  // What an edge sends: signed with its token.
  async function asEdge(path: string, payload: object) {
    const body = JSON.stringify(payload);
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-de-1', method: 'POST', pathWithQuery: path, body });
    const answer = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(answer.status, `${path}: ${await answer.clone().text()}`).to.equal(200);
  }

  before(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await core?.stop();
  });

  it('serves the page with its hashed assets and a strict content security policy, and keeps API 404s in JSON', async () => {
    const answer = await fetch(`${core.url}/domains/some-id`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-security-policy')).to.include("script-src 'self'");
    const html = await answer.text();
    const script = html.match(/src="(\/assets\/main-[A-Z0-9]+\.js)"/)![1];
    const asset = await fetch(`${core.url}${script}`);
    expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).to.match(/javascript/);
    for (const apiPath of ['/api/v1/nothing-here', '/API/v1/nothing-here', '//api/v1/domains', '/Health/']) {
      const answer = await fetch(`${core.url}${apiPath}`);
      expect(answer.headers.get('content-type'), apiPath).to.match(/json/);
    }
    expect((await fetch(`${core.url}/assets/missing.js`)).status).to.equal(404);
  });

  it('logs in, and a wrong password is answered in words', async () => {
    await page.goto(`${core.url}/`);
    expect(await seriousViolations(page)).to.deep.equal([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'login-1280.png') });
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).to.match(/401|invalid|credentials/i);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  it('creates a domain and a record through the UI, which the API then shows, and names a refused field', async () => {
    await visit('/domains', 'Domains', 'domains-empty');
    await page.getByLabel('New domain').fill('ui-made.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { level: 1, name: 'ui-made.example' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('www');
    await page.getByLabel('Content').fill('not an address');
    await page.getByRole('button', { name: 'Add record' }).click();
    const refusal = page.locator('#record-add-content-error');
    await refusal.getByText(/./).waitFor();
    expect(await refusal.textContent()).to.match(/IPv4|address/i);
    await page.getByLabel('Content').fill('192.0.2.80');
    await page.getByLabel('Proxied').check();
    await page.getByRole('button', { name: 'Add record' }).click();
    await page.getByRole('cell', { name: '192.0.2.80' }).waitFor();
    const session = JSON.parse((await page.evaluate(() => sessionStorage.getItem('cdn.session')))!);
    core.token = session.token;
    const domain = (await core.get('/api/v1/domains?q=ui-made')).data[0];
    expect(domain.domain).to.equal('ui-made.example');
    const records = (await core.get(`/api/v1/domains/${domain.id}/dns/records`)).data;
    expect(records.map((record: Json) => [record.name, record.content, record.proxied])).to.deep.equal([['www', '192.0.2.80', true]]);
    await page.getByRole('checkbox', { name: /Proxy www\.ui-made\.example/ }).uncheck();
    await page.getByText('DNS only').waitFor();
    expect((await core.get(`/api/v1/domains/${domain.id}/dns/records`)).data[0].proxied).to.equal(false);
    await visit(`/domains/${domain.id}`, 'ui-made.example', 'domain-records');
  });

  it('runs a purge and shows its progress to completed as the edge acknowledges it', async () => {
    const domain = (await core.get('/api/v1/domains?q=ui-made')).data[0];
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await asEdge('/api/v1/edge/heartbeat', { edge_id: 'edge-de-1', version: '0.1.0', country: 'DE', region: 'eu' });
    await visit(`/domains/${domain.id}?tab=cache`, 'ui-made.example', 'domain-cache');
    await page.getByLabel('Scope').selectOption('prefix');
    await page.getByLabel('Value').fill('/images/');
    await page.getByRole('button', { name: 'Purge' }).click();
    await page.getByText('queued').waitFor();
    const [purge] = (await core.get(`/api/v1/domains/${domain.id}/cache/purge-requests`)).data;
    await publishOnce(core.db, core.core.connection.pool, loadConfig({ DATABASE_URL: core.databaseUrl }), SNAPSHOT_DEFAULTS);
    await page.getByText('in progress').waitFor();
    await asEdge('/api/v1/edge/heartbeat', { edge_id: 'edge-de-1', purge_acks: [purge.id] });
    await page.getByText('completed').waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'domain-cache-purged-1280.png'), fullPage: true });
  });

  it('plots traffic and security events that came in through the collector', async () => {
    const domain = (await core.get('/api/v1/domains?q=ui-made')).data[0];
    const now = Math.floor(Date.now() / 1000);
    const usage = Array.from({ length: 30 }, (_, index) => ({ domain: 'www.ui-made.example', path: '/', status: index % 10 === 0 ? 404 : 200, bytes: 2000, cache_status: index % 3 === 0 ? 'MISS' : 'HIT', timestamp: now - index * 300, client_country: index % 2 ? 'DE' : 'FR', client_ip: '192.0.2.44' }));
    await asEdge('/api/v1/collector/usage', { events: usage });
    const security = Array.from({ length: 4 }, (_, index) => ({ domain: 'www.ui-made.example', kind: 'waf', action: 'block', method: 'GET', path: '/wp-login.php', client_country: 'US', client_ip: '192.0.2.9', timestamp: now - index * 900, details: {} }));
    await asEdge('/api/v1/collector/security-events', { events: security });
    await visit(`/domains/${domain.id}?tab=analytics`, 'ui-made.example', 'domain-analytics');
    expect(await page.locator('.chart .uplot').count()).to.equal(3);
    expect(await page.getByText('30 requests').count()).to.equal(1);
    expect(await page.locator('.bars li', { hasText: 'DE' }).textContent()).to.include('15');
    await visit(`/domains/${domain.id}?tab=security`, 'ui-made.example', 'domain-security');
    expect(await page.locator('.chart .uplot').count()).to.equal(1);
    expect(await page.getByRole('cell', { name: 'GET /wp-login.php' }).count()).to.equal(4);
  });

  it('opens the origins, rules and SSL tabs, and adds an origin through the UI', async () => {
    const domain = (await core.get('/api/v1/domains?q=ui-made')).data[0];
    await visit(`/domains/${domain.id}?tab=origins`, 'ui-made.example', 'domain-origins');
    await page.getByLabel('Host').fill('origin.ui-made.example');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByRole('cell', { name: 'https://origin.ui-made.example:443' }).waitFor();
    expect((await core.get(`/api/v1/domains/${domain.id}/origins`)).data.map((origin: Json) => origin.host)).to.deep.equal(['origin.ui-made.example']);
    await core.post(`/api/v1/domains/${domain.id}/redirects`, { name: 'old blog', match: { paths: [{ kind: 'prefix', value: '/blog/' }] }, target: '/news/' }, 201);
    await visit(`/domains/${domain.id}?tab=rules`, 'ui-made.example', 'domain-rules');
    await page.getByRole('cell', { name: 'old blog', exact: true }).waitFor();
    await visit(`/domains/${domain.id}?tab=ssl`, 'ui-made.example', 'domain-ssl');
  });

  it('edits and deletes a record, writes a rule and geo routes as JSON (a refusal names its field), edits an origin, and saves cache, SSL and settings forms', async () => {
    page.on('dialog', (dialog) => void dialog.accept());
    const domain = (await core.get('/api/v1/domains?q=ui-made')).data[0];
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'TXT', name: 'note', content: 'temporary' }, 201);
    await page.goto(`${core.url}/domains/${domain.id}?tab=dns`);
    await page.getByRole('button', { name: 'Edit A www.ui-made.example' }).click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'the editor takes the focus').to.equal('Edit A www.ui-made.example');
    const editor = page.getByRole('form', { name: 'Edit A www.ui-made.example' });
    await editor.getByLabel('TTL').fill('900');
    await editor.getByRole('button', { name: 'Save record' }).click();
    await page.getByRole('cell', { name: '900', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete TXT note.ui-made.example' }).click();
    await page.getByRole('cell', { name: 'temporary' }).waitFor({ state: 'detached' });
    const records = (await core.get(`/api/v1/domains/${domain.id}/dns/records`)).data;
    expect(records.map((record: Json) => [record.name, record.ttl])).to.deep.equal([['www', 900]]);

    await page.goto(`${core.url}/domains/${domain.id}?tab=rules`);
    await page.getByLabel('Kind').selectOption('redirects');
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByRole('button', { name: 'Advanced (JSON)' }).click();
    const rule = page.getByLabel('New rule as JSON');
    await rule.fill('{ "name": "docs",');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('.json-error').getByText(/JSON/).waitFor();
    await rule.fill(JSON.stringify({ name: 'docs', match: { paths: [{ kind: 'bogus', value: '/docs' }] }, target: '/documentation/' }));
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('.json-error').getByText(/match\.paths/).waitFor();
    await rule.fill(JSON.stringify({ name: 'docs', match: { paths: [{ kind: 'exact', value: '/docs' }] }, target: '/documentation/' }));
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('cell', { name: 'docs', exact: true }).waitFor();
    expect((await core.get(`/api/v1/domains/${domain.id}/redirects`)).data.map((item: Json) => item.name)).to.include('docs');
    expect(await seriousViolations(page)).to.deep.equal([]);

    await page.goto(`${core.url}/domains/${domain.id}?tab=origins`);
    await page.getByRole('button', { name: 'Edit origin origin.ui-made.example' }).click();
    const origin = page.getByRole('form', { name: 'Origin origin.ui-made.example' });
    await origin.getByLabel('Weight (1–1000)').fill('70');
    await origin.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: '70', exact: true }).waitFor();
    expect((await core.get(`/api/v1/domains/${domain.id}/origins`)).data[0].weight).to.equal(70);

    const geo = (await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'geo', content: '192.0.2.70', routing_policy: 'geo' }, 201)).data;
    await page.goto(`${core.url}/domains/${domain.id}?tab=dns`);
    await page.getByText('geo routes', { exact: true }).click();
    const routes = page.getByLabel('Geo routes of geo.ui-made.example as JSON');
    await routes.fill(JSON.stringify([{ scope: 'country', code: 'ZZ', target: '192.0.2.71' }]));
    await page.getByRole('button', { name: 'Save routes' }).click();
    await page.locator('.json-error').getByText(/./).waitFor();
    await routes.fill(JSON.stringify([{ scope: 'country', code: 'DE', target: '192.0.2.71' }, { scope: 'default', target: '192.0.2.70' }]));
    await page.getByRole('button', { name: 'Save routes' }).click();
    await page.getByText('country DE → 192.0.2.71').waitFor();
    expect((await core.get(`/api/v1/domains/${domain.id}/dns/records/${geo.id}/geo-routes`)).data.map((route: Json) => route.code)).to.deep.equal(['DE', null]);

    await page.goto(`${core.url}/domains/${domain.id}?tab=cache`);
    const cache = page.getByRole('form', { name: 'Cache settings' });
    await cache.getByLabel('Default edge cache TTL (seconds)').fill('120');
    await cache.getByRole('button', { name: 'Save' }).click();
    await cache.getByText('Saved.').waitFor();
    expect((await core.get(`/api/v1/domains/${domain.id}/cache/settings`)).data.default_edge_ttl_seconds).to.equal(120);

    await page.goto(`${core.url}/domains/${domain.id}?tab=ssl`);
    const ssl = page.getByRole('form', { name: 'SSL settings' });
    await ssl.getByLabel('Always use HTTPS').check();
    await ssl.getByRole('button', { name: 'Save' }).click();
    await ssl.getByText('Saved.').waitFor();
    expect((await core.get(`/api/v1/domains/${domain.id}/ssl`)).data.settings.always_https).to.equal(true);

    await visit('/settings', 'Settings', 'settings');
    const group = page.getByRole('form', { name: 'Settings: dns' });
    const input = group.locator('input[type=text]').first();
    await input.fill('not-a-value');
    await group.getByRole('button', { name: 'Save' }).click();
    await group.locator('.field-error[role=alert]').waitFor();
    expect(await group.locator('.field-error[role=alert]').textContent()).to.not.equal('');
  });

  it('shows a domain owned by a GitOps repository read-only, with its file and a YAML snippet instead of an edit', async () => {
    const domain = (await core.post('/api/v1/domains', { domain: 'git-owned.example' }, 201)).data;
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.90', proxied: true }, 201);
    const geo = (await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'eu', content: '192.0.2.91', routing_policy: 'geo' }, 201)).data;
    await core.put(`/api/v1/domains/${domain.id}/dns/records/${geo.id}/geo-routes`, { routes: [{ scope: 'country', code: 'DE', target: '192.0.2.92' }, { scope: 'default', target: '192.0.2.91' }] });
    const plan = '### CDN plan\n\n`creates=1 updates=0 deletes=0`\n\n| domain | action |\n|---|---|\n| git-owned.example | update |\n\n<details><summary><b>git-owned.example</b>: 1 to create</summary>\n\n| | resource | item |\n|---|---|---|\n| + | record | `A www <script>alert(1)</script>` |\n\n</details>\n\n[the runbook](https://docs.example/runbook) [click](javascript:alert(1)) ![tracker](https://evil.example/pixel.png) <img src=x onerror=alert(1)>\n';
    await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'kept.git-owned.example' }, 201);
    const notInGit = [{ domain: 'git-owned.example', resource: 'origin', key: 'https://kept.git-owned.example:443' }];
    const drift = [{ domain: 'git-owned.example', resource: 'record', key: 'A www 192.0.2.90', action: 'update', fields: [{ field: 'ttl', before: 300, after: 600 }] }];
    await core.post('/api/v1/gitops/runs', { repo: 'https://git.example/cdn.git', branch: 'main', commit_sha: 'c'.repeat(40), trigger: 'webhook', status: 'applied', started_at: 1_700_000_000, finished_at: 1_700_000_001, domains: [{ domain: 'git-owned.example', ok: true, applied: 2 }], managed: [{ domain: 'git-owned.example', file: 'domains/git-owned.example.yaml' }], plan_markdown: plan, drift, not_in_git: notInGit }, 201);
    const listed = (await core.get('/api/v1/gitops/runs?limit=1')).data[0];
    expect(listed).to.not.have.any.keys('plan_markdown', 'managed');
    expect((await core.get('/api/v1/gitops/status')).data.repos[0].not_in_git).to.deep.equal(notInGit);
    await visit(`/domains/${domain.id}`, 'git-owned.example', 'domain-git-owned');
    expect(await page.getByText('domains/git-owned.example.yaml @ cccccccc').count()).to.equal(1);
    expect(await page.getByRole('button', { name: 'Add record' }).count()).to.equal(0);
    expect(await page.getByRole('checkbox', { name: /^Proxy/ }).count(), 'no proxied switch').to.equal(0);
    await page.getByText('geo routes', { exact: true }).click();
    await page.getByText('country DE → 192.0.2.92').waitFor();
    await page.getByRole('button', { name: /YAML of A www\.git-owned\.example/ }).click();
    expect(await page.getByRole('region', { name: 'YAML for a pull request' }).textContent()).to.include('- { type: A, name: "www", content: "192.0.2.90", proxied: true }');
    await core.post(`/api/v1/domains/${domain.id}/redirects`, { name: 'from git', match: { paths: [{ kind: 'exact', value: '/a' }] }, target: '/b' }, 201);
    await page.goto(`${core.url}/domains/${domain.id}?tab=rules`);
    await page.getByRole('button', { name: 'YAML of rule from git for domains/git-owned.example.yaml' }).click();
    expect(await page.getByRole('region', { name: 'YAML for a pull request' }).textContent()).to.include('under redirects: in domains/git-owned.example.yaml').and.include('- {"name":"from git"');
    expect(await page.getByRole('button', { name: 'New rule' }).count()).to.equal(0);
    await page.goto(`${core.url}/domains/${domain.id}?tab=origins`);
    await page.getByRole('button', { name: 'Delete origin kept.git-owned.example' }).waitFor();
    expect(await page.getByRole('button', { name: 'Add origin' }).count()).to.equal(0);
    await visit('/domains', 'Domains', 'domains');
    expect(await page.getByRole('row', { name: /git-owned\.example/ }).textContent()).to.include('domains/git-owned.example.yaml');

    // Until the repository's ownership is known nothing is offered for editing, and a failure to learn it says so.
    await page.route('**/api/v1/gitops/status', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'database unavailable' }) }));
    const apiMade = (await core.get('/api/v1/domains?q=ui-made')).data[0];
    await page.goto(`${core.url}/domains/${apiMade.id}`);
    await page.getByText(/Could not tell whether a GitOps repository owns this domain/).waitFor();
    expect(await page.getByRole('button', { name: 'Add record' }).count()).to.equal(0);
    await page.unroute('**/api/v1/gitops/status');
  });

  it('opens the overview, edges, GitOps and audit views without errors', async () => {
    await visit('/', 'Overview', 'overview');
    await page.getByRole('link', { name: 'Edges' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edges' }).waitFor();
    // The title and the focus move in an effect after the view has rendered: wait for them, then compare.
    await page.waitForFunction(() => document.title.startsWith('Edges') && document.activeElement?.id === 'main', undefined, { timeout: 5000 }).catch(() => undefined);
    expect(await page.evaluate(() => [document.title, document.activeElement?.id])).to.deep.equal(['Edges · CDN control plane', 'main']);
    await visit('/edges', 'Edges', 'edges');
    expect(await page.getByRole('row', { name: /edge-de-1/ }).textContent()).to.include('DE');
    await visit('/audit', 'Audit log', 'audit');
    expect(await page.getByRole('cell', { name: 'dns_record.create' }).count()).to.be.at.least(1);
    await visit('/settings', 'Settings', 'settings');
    await visit('/gitops', 'GitOps', 'gitops');
    expect(await page.getByText('https://git.example/cdn.git').count()).to.be.at.least(1);
    // The last run's plan, rendered from its Markdown: tables and folds, no HTML of its own.
    const plan = page.locator('.markdown');
    expect(await plan.locator('table').count()).to.equal(2);
    expect(await plan.locator('details summary b').textContent()).to.equal('git-owned.example');
    expect(await plan.locator('script').count()).to.equal(0);
    expect(await plan.textContent()).to.include('<script>alert(1)</script>');
    expect(await plan.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).to.deep.equal(['https://docs.example/runbook']);
    expect(await plan.locator('img').count()).to.equal(0);
    const drift = page.getByRole('region', { name: 'Drift: changed through the API, left so: git-owned.example record A www 192.0.2.90' });
    expect(await drift.locator('tbody td').allTextContents()).to.deep.equal(['ttl', '600', '300']);
  });

  it('returns to the login page when the session has run out', async () => {
    await page.goto(`${core.url}/`);
    await page.evaluate(() => {
      const session = JSON.parse(sessionStorage.getItem('cdn.session')!);
      sessionStorage.setItem('cdn.session', JSON.stringify({ ...session, expires_at: Math.floor(Date.now() / 1000) - 1 }));
    });
    await page.getByRole('link', { name: 'Domains' }).click();
    await page.getByText('Your session ended. Log in again.').waitFor();
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'Log out' }).waitFor();
  });

  it('returns to the login page when the session ends, and after logging out', async () => {
    await page.evaluate(() => {
      const session = JSON.parse(sessionStorage.getItem('cdn.session')!);
      sessionStorage.setItem('cdn.session', JSON.stringify({ ...session, token: 'expired-token' }));
    });
    await page.goto(`${core.url}/domains`);
    await page.getByText('Your session ended. Log in again.').waitFor();
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('cdn.session'))).to.equal(null);
  });

  it('wrote no errors to the browser console', () => {
    // Chromium logs every 4xx answer; the deliberate ones (wrong password, ended session, refused record, the status made to fail) are shown by the page itself.
    expect(consoleErrors.filter((error) => !/^Failed to load resource: the server responded with a status of (401|422|503)/.test(error))).to.deep.equal([]);
  });
});

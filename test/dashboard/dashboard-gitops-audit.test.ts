import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expectAccessibleAtBothWidths } from '../support/dashboard-browser.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { GitopsRepo } from '../support/gitops-repo.js';

const ADMIN = { username: 'gitops-admin', password: 'gitops-admin-password-1' };
const DOMAIN = (ttl: number) => `domain: owned.example
records:
  - { type: A, name: www, content: 192.0.2.10, ttl: ${ttl} }
origins:
  - { host: origin.owned.example }
`;

// The GitOps and audit views in Chromium, against a core whose own controller follows a real git
// repository (an hour's interval, no webhook: only "reconcile now" makes it run).
describe('the dashboard: GitOps like Argo CD, and a searchable audit log', function () {
  this.timeout(120000);
  let repo: GitopsRepo;
  let data: string;
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  async function check(name: string) {
    await page.waitForLoadState('networkidle');
    await expectAccessibleAtBothWidths(page, name, name);
  }
  async function visit(url: string, heading: string) {
    await page.goto(`${core.url}${url}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }
  const runs = async (): Promise<Json[]> => (await core.get('/api/v1/gitops/runs?limit=100')).data;
  const owned = async () => (await core.get('/api/v1/domains?q=owned.example')).data[0];
  const auditRows = () => page.getByRole('region', { name: 'Audit events' }).locator('tbody tr');

  before(async () => {
    repo = await GitopsRepo.create({ 'domains/owned.example.yaml': DOMAIN(300) });
    data = await mkdtemp(path.join(tmpdir(), 'cdn-dashboard-gitops-'));
    core = await TestCore.start({
      CDN_BOOTSTRAP_ADMIN_USER: '1',
      CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username,
      CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      CDN_GITOPS_REPO: repo.url,
      CDN_GITOPS_BRANCH: 'main',
      CDN_GITOPS_INTERVAL_SECONDS: '3600',
      CDN_DATA_DIR: data,
    });
    await eventually('the first run', async () => (await runs()).find((run) => run.status === 'applied'));
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${core.url}/`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await core?.stop();
    await repo?.remove();
    await rm(data, { recursive: true, force: true });
  });

  it('reconciles a repository on request, then shows its state in words, drift field by field, and the plan with its commit', async () => {
    const domain = await owned();
    const [origin] = (await core.get(`/api/v1/domains/${domain.id}/origins`)).data;
    await core.patch(`/api/v1/domains/${domain.id}/origins/${origin.id}`, { weight: 7 });
    const sha = await repo.commit('longer ttl', { 'domains/owned.example.yaml': DOMAIN(900) });
    await visit('/gitops', 'GitOps');
    const card = page.locator('.card', { has: page.getByRole('heading', { level: 2, name: repo.url }) });
    await card.getByText('In sync', { exact: true }).first().waitFor();
    expect(await card.getByRole('link').count(), 'a file:// repository has no commit page').to.equal(0);
    expect(await card.textContent()).to.include(repo.shas[0].slice(0, 8));

    await card.getByRole('button', { name: 'Reconcile now' }).click();
    await card.getByRole('status').getByText(`Reconciled at commit ${sha.slice(0, 8)}: Applied.`).waitFor();
    const run = (await runs()).find((candidate) => candidate.commit_sha === sha);
    expect(run, 'the run the button asked for').to.include({ trigger: 'request', status: 'applied' });
    expect((await core.get(`/api/v1/domains/${domain.id}/dns/records`)).data[0].ttl).to.equal(900);

    await card.getByText('Drifted', { exact: true }).first().waitFor();
    const drift = card.getByRole('region', { name: /^Drift: changed through the API, left so: owned\.example origin/ });
    expect(await drift.locator('thead th').allTextContents()).to.deep.equal(['Field', 'In git', 'Live']);
    expect(await drift.locator('tbody tr').first().locator('td').allTextContents()).to.deep.equal(['weight', '100', '7']);
    const plan = card.locator('details', { has: page.getByText('Plan of the last run') });
    expect(await plan.getByText('Planned from commit').textContent()).to.include(sha.slice(0, 8));
    expect(await plan.locator('.markdown').textContent()).to.include('owned.example').and.include('900');
    await check('gitops-reconciled');
  });

  it('links the commit of a repository on a known web host, and offers no reconcile for a controller running elsewhere', async () => {
    const sha = 'ab12cd34'.repeat(5);
    const github = 'https://github.com/acme/cdn-config.git';
    await core.post('/api/v1/gitops/runs', { repo: github, branch: 'main', commit_sha: sha, trigger: 'webhook', status: 'refused', started_at: 1_700_000_000, finished_at: 1_700_000_001, error: 'the plan deletes 9 of 12 live items (75%)', plan_markdown: '### CDN plan\n\n`creates=0 updates=0 deletes=9`\n' }, 201);
    await visit('/gitops', 'GitOps');
    const card = page.locator('.card', { has: page.getByRole('heading', { level: 2, name: github }) });
    await card.getByText('Refused by the safety gate', { exact: true }).first().waitFor();
    const links = await card.getByRole('link').evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
    expect(links).to.include(`https://github.com/acme/cdn-config/commit/${sha}`);
    expect(await card.getByRole('button', { name: 'Reconcile now' }).count()).to.equal(0);
    expect(await card.textContent()).to.include('separate cdn reconcile process');
    await check('gitops-github');
  });

  it('searches the audit log by who, action, target and time, names deleted targets, and shows the repository and commit of GitOps writes', async () => {
    const hand = await core.createDomain('hand.example');
    const note = (await core.post(`/api/v1/domains/${hand.id}/dns/records`, { type: 'TXT', name: 'note', content: 'by hand' }, 201)).data;
    await core.delete(`/api/v1/domains/${hand.id}/dns/records/${note.id}`);
    await core.delete(`/api/v1/domains/${hand.id}`);
    await visit('/audit', 'Audit log');
    const search = page.getByRole('search', { name: 'Search the audit log' });

    await search.getByLabel('Target (name, apex or id)').fill('hand.example');
    await search.getByRole('button', { name: 'Search' }).click();
    await eventually('the four events of hand.example', async () => ((await auditRows().count()) === 4 ? true : undefined));
    const rows = await auditRows().allTextContents();
    expect(rows[0]).to.include('domain.delete').and.include('hand.example');
    expect(rows[1]).to.include('dns_record.delete').and.include('TXT note.hand.example');

    await search.getByLabel('Who').fill('anonymous');
    await search.getByLabel('Action').fill('dns_record');
    await search.getByRole('button', { name: 'Search' }).click();
    await eventually('two record events', async () => ((await auditRows().count()) === 2 ? true : undefined));
    await check('audit-searched');

    await search.getByRole('button', { name: 'Clear' }).click();
    await search.getByLabel('Target (name, apex or id)').fill('www.owned.example');
    await search.getByLabel('Action').fill('dns_record.update');
    await search.getByRole('button', { name: 'Search' }).click();
    const update = auditRows().filter({ hasText: repo.shas[1].slice(0, 8) });
    await update.waitFor();
    expect(await update.textContent()).to.include('A www.owned.example').and.include(repo.url);

    await search.getByLabel('Action').fill('Not An Action');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.locator('#audit-action-error').getByText(/action must be/).waitFor();
    expect(await search.getByLabel('Action').getAttribute('aria-describedby')).to.equal('audit-action-error');

    await search.getByRole('button', { name: 'Clear' }).click();
    const nextYear = `${new Date().getFullYear() + 1}-01-01T00:00`;
    await search.getByLabel('From').fill(nextYear);
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No event matches.').waitFor();
    await check('audit-empty-search');
    // Chromium logs every 4xx answer: the refused search was shown by the page itself.
    expect(consoleErrors.filter((error) => !/status of 422/.test(error)), 'browser console').to.deep.equal([]);
  });
});

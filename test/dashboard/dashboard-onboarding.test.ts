import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expectAccessibleAtBothWidths } from '../support/dashboard-browser.js';
import { TestCore, type Json } from '../support/core.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';

const ADMIN = { username: 'onboarding-admin', password: 'onboarding-password-1' };
const PLATFORM = ['ns1.platform.test', 'ns2.platform.test'];
const ELSEWHERE = ['ns1.elsewhere.test', 'ns2.elsewhere.test'];

// Onboarding a domain in Chromium against a real core. The world's view of a domain's delegation is
// a real PowerDNS server (CDN_NAMESERVER_RESOLVERS asks it; delegating at the registrar is setting
// the apex's NS RRset there), so "Check now" runs the core's real NS lookup.
describe('onboarding and deleting a domain in the dashboard', function () {
  this.timeout(120000);
  let world: PowerDnsServer;
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  // The registrar's change: the apex's NS records as the world sees them.
  async function delegate(apex: string, nameservers: string[]) {
    const rrsets = [{ name: `${apex}.`, type: 'NS', ttl: 60, changetype: 'REPLACE', records: nameservers.map((ns) => ({ content: `${ns}.`, disabled: false })) }];
    const exists = (await world.api('GET', `/zones/${apex}.`)).status === 200;
    const answer = exists ? await world.api('PATCH', `/zones/${apex}.`, { rrsets }) : await world.api('POST', '/zones', { name: `${apex}.`, kind: 'Native', nameservers: nameservers.map((ns) => `${ns}.`) });
    expect(answer.status).to.be.oneOf([201, 204]);
  }

  async function openDomain(domain: Json) {
    await page.goto(`${core.url}/domains/${domain.id}`);
    await page.getByRole('heading', { level: 1, name: domain.domain }).waitFor();
    await page.waitForLoadState('networkidle');
  }

  const checkLayouts = (name: string) => expectAccessibleAtBothWidths(page, name, name);

  const panel = () => page.getByRole('region', { name: 'Nameservers' });
  const apiDomain = async (id: string) => (await core.get(`/api/v1/domains/${id}`)).data;

  before(async () => {
    const missing = powerDnsMissing();
    if (missing) throw new Error(missing);
    world = await PowerDnsServer.start();
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, CDN_DEFAULT_NAMESERVERS: PLATFORM.join(','), CDN_NAMESERVER_RESOLVERS: `127.0.0.1:${world.dnsPort}`, CDN_NAMESERVER_LOOKUP_TIMEOUT_MS: '1000' });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${core.url}/`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    core.token = JSON.parse((await page.evaluate(() => sessionStorage.getItem('cdn.session')))!).token;
  });

  // No test leaves errors in the browser console. Chromium logs every 4xx answer; the deliberate
  // one (activation refused without delegation) is shown by the page itself.
  afterEach(() => {
    const unexpected = consoleErrors.splice(0).filter((error) => !/^Failed to load resource: the server responded with a status of 422/.test(error));
    expect(unexpected, 'browser console errors').to.deep.equal([]);
  });

  after(async () => {
    await browser?.close();
    await core?.stop();
    await world?.stop();
  });

  it('shows a new domain the nameservers to set at its registrar, each copyable', async () => {
    await page.goto(`${core.url}/domains`);
    await page.getByLabel('New domain').fill('onboard.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { level: 1, name: 'onboard.test' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await panel().getByRole('list', { name: 'Nameservers to set' }).locator('code').allTextContents()).to.deep.equal(PLATFORM);
    await panel().getByRole('button', { name: 'Copy all nameservers' }).click();
    await panel().getByRole('status').getByText(`Copied ${PLATFORM.join(', ')}.`).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(PLATFORM.join('\n'));
    await panel().getByRole('button', { name: 'Copy ns2.platform.test' }).click();
    await panel().getByRole('status').getByText('Copied ns2.platform.test.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal('ns2.platform.test');
    await checkLayouts('domain-onboarding');
  });

  it('"Check now" shows the delegation the check saw, and activates the domain once the registrar points to the platform', async () => {
    const domain = (await core.get('/api/v1/domains?q=onboard.test')).data[0];
    await delegate('onboard.test', ELSEWHERE);
    await openDomain(domain);
    await panel().getByRole('button', { name: 'Check now' }).click();
    const outcome = panel().locator('.check-outcome');
    await outcome.getByText(/Not delegated yet/).waitFor();
    expect(await outcome.textContent()).to.include(`Missing at the registrar: ${PLATFORM.join(', ')}.`).and.include(`To remove there: ${ELSEWHERE.join(', ')}.`);
    await panel().getByText(`the domain is delegated to ${ELSEWHERE.join(', ')}.`).waitFor();
    const checked = await apiDomain(domain.id);
    expect(checked).to.deep.include({ status: 'pending_nameserver', observed_nameservers: ELSEWHERE });
    expect(checked.nameservers_checked_at).to.be.a('number');

    // What the last check saw is the domain's own: it is shown on the next visit too, with its time.
    await openDomain(domain);
    const lastCheck = panel().getByText(/^Last checked/);
    expect(await lastCheck.textContent()).to.include(`the domain is delegated to ${ELSEWHERE.join(', ')}.`);
    expect(await lastCheck.locator('time').getAttribute('datetime')).to.equal(new Date(checked.nameservers_checked_at * 1000).toISOString());
    await checkLayouts('domain-onboarding-checked');

    await delegate('onboard.test', PLATFORM);
    await panel().getByRole('button', { name: 'Check now' }).click();
    await outcome.getByText('Delegation verified: the domain is now active.').waitFor();
    await page.locator('.badge', { hasText: /^active$/ }).waitFor();
    expect(await apiDomain(domain.id)).to.deep.include({ status: 'active', activation_override: false, observed_nameservers: PLATFORM });
    await openDomain(domain);
    expect(await panel().count(), 'an active, delegated domain has nothing left to onboard').to.equal(0);
  });

  it('refuses activation while the delegation is not seen, explains the override, and activates with it', async () => {
    const domain = await core.createDomain('override.test');
    await openDomain(domain);
    // The world's server has no zone for it: the lookup is refused, which proves nothing either way.
    await panel().getByRole('button', { name: 'Check now' }).click();
    await panel().locator('.check-outcome').getByText(/could not see the delegation \(NS lookup of override\.test failed: EREFUSED\)/).waitFor();
    await panel().getByText('the delegation could not be seen (NS lookup of override.test failed: EREFUSED).').waitFor();

    await panel().getByRole('button', { name: 'Activate', exact: true }).click();
    const refusal = panel().locator('#override-error[role=alert]');
    await refusal.waitFor();
    expect(await refusal.textContent()).to.include('Not activated: the delegation does not match yet.');
    expect((await apiDomain(domain.id)).status).to.equal('pending_nameserver');
    const override = panel().getByLabel('Activate without a verified delegation (override)');
    expect(await override.getAttribute('aria-describedby')).to.equal('override-help override-error');
    expect(await panel().locator('#override-help').textContent()).to.include('visitors reach them only once the registrar points to the nameservers above');
    await checkLayouts('domain-onboarding-refused');

    await override.check();
    await panel().getByRole('button', { name: 'Activate anyway' }).click();
    await panel().getByText(/activated by override: its delegation has not been seen yet/).waitFor();
    expect(await apiDomain(domain.id)).to.include({ status: 'active', activation_override: true });
    expect(await panel().getByRole('button', { name: /^Activate/ }).count()).to.equal(0);
    expect(await panel().getByRole('list', { name: 'Nameservers to set' }).locator('code').allTextContents(), 'the nameservers are still shown to set').to.deep.equal(PLATFORM);
  });

  it('deletes a domain only once its name is typed, then shows the domain list', async () => {
    const domain = await core.createDomain('delete-me.test');
    await openDomain(domain);
    await page.getByRole('button', { name: 'Delete domain' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete delete-me.test?' });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete delete-me.test' });
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog.getByLabel('Type delete-me.test to confirm').fill('delete-me');
    expect(await confirm.isDisabled()).to.equal(true);
    await checkLayouts('domain-delete-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await apiDomain(domain.id)).domain).to.equal('delete-me.test');

    await page.getByRole('button', { name: 'Delete domain' }).click();
    expect(await dialog.getByLabel('Type delete-me.test to confirm').inputValue(), 'a cancelled confirmation is not kept').to.equal('');
    await dialog.getByLabel('Type delete-me.test to confirm').fill('delete-me.test');
    expect(await confirm.isEnabled()).to.equal(true);
    await confirm.click();
    await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/domains');
    await core.get(`/api/v1/domains/${domain.id}`, 404);
  });

  it('says that a git-owned domain is deleted through git instead of offering Delete, and still onboards it', async () => {
    const domain = await core.createDomain('git-owned.test');
    await core.post('/api/v1/gitops/runs', { repo: 'https://git.example/cdn.git', branch: 'main', commit_sha: 'd'.repeat(40), trigger: 'webhook', status: 'applied', started_at: 1_700_000_000, finished_at: 1_700_000_001, domains: [{ domain: 'git-owned.test', ok: true, applied: 1 }], managed: [{ domain: 'git-owned.test', file: 'domains/git-owned.test.yaml' }] }, 201);
    await openDomain(domain);
    const deletion = page.getByRole('region', { name: 'Delete this domain' });
    expect(await deletion.textContent()).to.include('deleted through git: remove that file in a pull request').and.include('domains/git-owned.test.yaml');
    expect(await page.getByRole('button', { name: 'Delete domain' }).count()).to.equal(0);
    await panel().getByRole('button', { name: 'Check now' }).waitFor();
    await checkLayouts('domain-git-owned-delete');
  });

});

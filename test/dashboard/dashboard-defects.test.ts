import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { eventually } from '../support/eventually.js';
import { TestCore, type Json } from '../support/core.js';
import { expectAccessibleAtBothWidths, logIn, postAsEdge, seriousViolations, visit } from '../support/dashboard-browser.js';

const ADMIN = { username: 'defects-admin', password: 'defects-password-1' };
const EDGE = { token: 'cdnedge_dashboard-defects-token-0123456789', id: 'edge-defects-1' };
const TITLE = ' · CDN control plane';

// Issue 23, items 11-14 and 19: the dashboard in Chromium, checked with axe at 1280 and 390 px.
describe('the browser dashboard: settings lists, charts of a first hour, field errors, ownership, titles and phones', function () {
  this.timeout(120000);
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  let apiDomain: Json;
  let gitDomain: Json;
  const consoleErrors: string[] = [];

  function watchConsole(watched: Page) {
    watched.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    watched.on('pageerror', (error) => consoleErrors.push(error.message));
  }

  async function open(on: Page, url: string, heading: string) {
    await on.goto(`${core.url}${url}`);
    await on.getByRole('heading', { level: 1, name: heading }).waitFor();
    await on.waitForLoadState('networkidle');
  }

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, CDN_BOOTSTRAP_EDGE_TOKEN: EDGE.token });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchConsole(page);
    core.token = await logIn(page, core.url, ADMIN);

    apiDomain = await core.createDomain('cards.example');
    await core.post(`/api/v1/domains/${apiDomain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10' }, 201);
    await core.post(`/api/v1/domains/${apiDomain.id}/dns/records`, { type: 'TXT', name: 'verification-token-for-a-long-name', content: `v=spf1 ${'include:_spf.mail-provider.example '.repeat(4)}~all` }, 201);
    await core.post(`/api/v1/domains/${apiDomain.id}/origins`, { host: 'origin-with-a-long-hostname.cards.example' }, 201);
    await core.post(`/api/v1/domains/${apiDomain.id}/redirects`, { name: 'old blog', match: { paths: [{ kind: 'prefix', value: '/blog/' }] }, target: '/news/' }, 201);

    gitDomain = await core.createDomain('owned.example');
    await core.post(`/api/v1/domains/${gitDomain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.90', proxied: true }, 201);
    await core.post('/api/v1/gitops/runs', { repo: 'https://git.example/cdn.git', branch: 'main', commit_sha: 'd'.repeat(40), trigger: 'webhook', status: 'applied', started_at: 1_700_000_000, finished_at: 1_700_000_001, domains: [{ domain: 'owned.example', ok: true, applied: 1 }], managed: [{ domain: 'owned.example', file: 'domains/owned.example.yaml' }] }, 201);
  });
  after(async () => {
    await browser?.close();
    await core?.stop();
  });

  it('shows and saves the list-valued settings (nameserver hostnames, anycast addresses) with a list editor, a refusal at the list', async () => {
    await visit(page, core.url, '/settings', 'Settings');
    const nameservers = page.getByRole('form', { name: 'Settings: nameservers' });
    const hostnames = nameservers.getByRole('group', { name: 'Nameserver hostnames' });
    await hostnames.getByRole('button', { name: 'Add to Nameserver hostnames' }).click();
    await expectFocusOn(page, 'Nameserver hostnames 1', 'a new item takes the focus');
    await page.keyboard.type('not a hostname!');
    await nameservers.getByRole('button', { name: 'Save' }).click();
    const first = hostnames.getByRole('textbox', { name: 'Nameserver hostnames 1', exact: true });
    const refusal = page.locator(`#${await first.getAttribute('aria-describedby')}`);
    await refusal.getByText(/not a hostname/).waitFor();
    expect(await refusal.getAttribute('role')).to.equal('alert');
    expect(await hostnames.getAttribute('aria-describedby')).to.equal(await refusal.getAttribute('id'));
    await expectAccessibleAtBothWidths(page, 'settings with a refused list');

    await first.fill('ns1.example.net');
    expect(await refusal.textContent(), 'the refusal goes when the value changes').to.equal('');
    await hostnames.getByRole('button', { name: 'Add to Nameserver hostnames' }).click();
    await hostnames.getByRole('textbox', { name: 'Nameserver hostnames 2', exact: true }).fill('NS2.Example.NET');
    await hostnames.getByRole('button', { name: 'Add to Nameserver hostnames' }).click();
    await nameservers.getByRole('button', { name: 'Save' }).click();
    await nameservers.getByText('Saved.').waitFor();
    expect((await core.get('/api/v1/settings/nameservers')).data.hostnames, 'the empty third item is not sent').to.deep.equal(['ns1.example.net', 'ns2.example.net']);
    // The saved form reads its values back from the API: the inputs are empty for a moment.
    const shown = () => hostnames.getByRole('textbox').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
    await eventually('the saved hostnames in the form', async () => ((await shown()).length > 0 ? true : undefined));
    expect(await shown()).to.deep.equal(['ns1.example.net', 'ns2.example.net']);

    await hostnames.getByRole('button', { name: 'Remove Nameserver hostnames 1' }).click();
    await expectFocusOn(page, 'Nameserver hostnames 1', 'the focus goes to the item now in its place');
    await nameservers.getByRole('button', { name: 'Save' }).click();
    await nameservers.getByText('Saved.').waitFor();
    expect((await core.get('/api/v1/settings/nameservers')).data.hostnames).to.deep.equal(['ns2.example.net']);

    const anycast = page.getByRole('form', { name: 'Settings: anycast' });
    await anycast.getByRole('button', { name: 'Add to Anycast IPv4 addresses' }).click();
    await anycast.getByRole('textbox', { name: 'Anycast IPv4 addresses 1', exact: true }).fill('192.0.2.53');
    await anycast.getByRole('button', { name: 'Add to Anycast IPv6 addresses' }).click();
    await anycast.getByRole('textbox', { name: 'Anycast IPv6 addresses 1', exact: true }).fill('2001:DB8::53');
    await anycast.getByRole('button', { name: 'Save' }).click();
    await anycast.getByText('Saved.').waitFor();
    expect((await core.get('/api/v1/settings/anycast')).data).to.deep.equal({ anycast_ipv4: ['192.0.2.53'], anycast_ipv6: ['2001:db8::53'] });
  });

  it('draws the last 24 hours in the viewer\'s time zone and a hit ratio up to 100% when all data falls within one hour', async () => {
    const domain = await core.createDomain('first-hour.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await postAsEdge(core.url, EDGE, '/api/v1/edge/heartbeat', { edge_id: EDGE.id, version: '0.1.0', country: 'DE', region: 'eu' });
    const now = Math.floor(Date.now() / 1000);
    const usage = Array.from({ length: 3 }, () => ({ domain: 'www.first-hour.example', path: '/', status: 200, bytes: 1500, cache_status: 'HIT', timestamp: now - 1, client_country: 'DE', client_ip: '192.0.2.44' }));
    await postAsEdge(core.url, EDGE, '/api/v1/collector/usage', { events: usage });
    await postAsEdge(core.url, EDGE, '/api/v1/collector/security-events', { events: [{ domain: 'www.first-hour.example', kind: 'waf', action: 'block', method: 'GET', path: '/x', client_country: 'US', client_ip: '192.0.2.9', timestamp: now - 1, details: {} }] });

    // A viewer half an hour off UTC: hours of their own clock, not the UTC buckets' starts.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Asia/Kolkata', locale: 'en-GB' });
    const viewer = await context.newPage();
    try {
      watchConsole(viewer);
      await logIn(viewer, core.url, ADMIN);
      // The labels are read at 1280 px, before a resize redraws the charts.
      await open(viewer, `/domains/${domain.id}?tab=analytics`, 'first-hour.example');
      const axes = async (title: string) => {
        const box = viewer.locator('.chart', { has: viewer.getByText(title, { exact: true }) }).locator('[role=img]');
        return { x: (await box.getAttribute('data-x-axis'))!.split(' | '), y: (await box.getAttribute('data-y-axis'))!.split(' | ') };
      };
      for (const title of ['Requests', 'Bandwidth', 'Cache hit ratio']) expectLastDayInHours((await axes(title)).x, title);
      const ratio = (await axes('Cache hit ratio')).y;
      expect(ratio[0]).to.equal('0%');
      expect(ratio.at(-1), 'the hit ratio axis tops at 100%').to.equal('100%');
      expect((await axes('Requests')).y[0], 'counts start at 0').to.equal('0');
      await expectAccessibleAtBothWidths(viewer, 'analytics of a first hour');
      await open(viewer, `/domains/${domain.id}?tab=security`, 'first-hour.example');
      const security = viewer.locator('.chart [role=img]');
      expectLastDayInHours((await security.getAttribute('data-x-axis'))!.split(' | '), 'Security events');
      await expectAccessibleAtBothWidths(viewer, 'security events of a first hour');
    } finally {
      await context.close();
    }
  });

  it('lets the keyboard reach the YAML line of a git-owned record at 390 px', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${core.url}/domains/${gitDomain.id}`);
    await page.getByRole('button', { name: 'YAML of A www.owned.example for domains/owned.example.yaml' }).click();
    const line = page.getByRole('region', { name: 'YAML for a pull request' }).locator('pre');
    expect(await line.evaluate((element) => element.scrollWidth > element.clientWidth), 'the line scrolls sideways at 390 px').to.equal(true);
    expect(await seriousViolations(page)).to.deep.equal([]);
    await line.focus();
    expect(await page.evaluate(() => document.activeElement?.tagName)).to.equal('PRE');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('describes an input by its refusal without naming it by it, and clears the refusal when the value changes', async () => {
    await page.goto(`${core.url}/domains/${apiDomain.id}`);
    const form = page.getByRole('form', { name: 'Add a DNS record' });
    await form.getByLabel('Name', { exact: true }).fill('api');
    await form.getByRole('textbox', { name: 'Content', exact: true }).fill('not an address');
    await form.getByRole('button', { name: 'Add record' }).click();
    const refusal = page.locator('#record-add-content-error');
    await refusal.getByText(/IPv4|address/i).waitFor();
    const content = form.getByRole('textbox', { name: 'Content', exact: true });
    expect(await content.count(), 'the accessible name is the label alone').to.equal(1);
    expect(await content.getAttribute('aria-describedby')).to.equal('record-add-content-error');
    expect(await seriousViolations(page)).to.deep.equal([]);

    // A value the browser itself blocks (required, now empty): the API's old refusal must not stay beside it.
    await content.fill('');
    await form.getByRole('button', { name: 'Add record' }).click();
    expect(await content.evaluate((input) => (input as HTMLInputElement).validity.valueMissing)).to.equal(true);
    expect(await refusal.textContent()).to.equal('');

    await page.goto(`${core.url}/settings`);
    const dns = page.getByRole('form', { name: 'Settings: dns' });
    const proxied = dns.getByRole('textbox', { name: 'Shared proxy hostname', exact: true });
    await proxied.fill('not a hostname!');
    await dns.getByRole('button', { name: 'Save' }).click();
    const proxiedRefusal = page.locator(`#${(await proxied.getAttribute('aria-describedby'))!.split(' ').pop()}`);
    await proxiedRefusal.getByText(/hostname/).waitFor();
    expect(await dns.getByRole('textbox', { name: 'Shared proxy hostname', exact: true }).count(), 'the settings input keeps its name').to.equal(1);
    await proxied.fill('edge.cdn.example');
    expect(await proxiedRefusal.textContent()).to.equal('');
  });

  it('says "checking…" rather than "API" until the GitOps status is in, and names each page in its title', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/gitops/status', async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(`${core.url}/domains`);
      const owned = page.getByRole('row', { name: /owned\.example/ });
      await owned.waitFor();
      expect(await owned.locator('td').last().textContent()).to.equal('checking…');
      expect(await page.getByRole('row', { name: /cards\.example/ }).locator('td').last().textContent()).to.equal('checking…');
      release();
      await owned.getByText('domains/owned.example.yaml').waitFor();
      expect(await page.getByRole('row', { name: /cards\.example/ }).locator('td').last().textContent()).to.equal('API');
    } finally {
      release();
      await page.unroute('**/api/v1/gitops/status');
    }

    await expectTitle(page, `Domains${TITLE}`);
    await page.getByRole('link', { name: 'owned.example', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'owned.example' }).waitFor();
    await expectTitle(page, `owned.example · DNS records${TITLE}`);
    await page.getByRole('link', { name: 'Origins' }).click();
    await expectTitle(page, `owned.example · Origins${TITLE}`);
    await page.goto(`${core.url}/domains/${apiDomain.id}?tab=rules`);
    await expectTitle(page, `cards.example · Rules${TITLE}`);
    for (const [url, name] of [['/', 'Overview'], ['/edges', 'Edges'], ['/gitops', 'GitOps'], ['/settings', 'Settings'], ['/audit', 'Audit log'], ['/nowhere', 'Not found']]) {
      await page.goto(`${core.url}${url}`);
      await expectTitle(page, `${name}${TITLE}`);
    }
    const stranger = await browser.newPage();
    try {
      await stranger.goto(`${core.url}/`);
      await stranger.getByRole('button', { name: 'Log in' }).waitFor();
      await expectTitle(stranger, `Log in${TITLE}`);
    } finally {
      await stranger.close();
    }
  });

  it('keeps Edit and Delete of every table within a 390 px screen, rows shown as cards labelled by column', async () => {
    for (const [tab, actions] of [['dns', ['A www.cards.example', 'TXT verification-token-for-a-long-name.cards.example']], ['origins', ['origin origin-with-a-long-hostname.cards.example']], ['rules', ['rule old blog']]] as const) {
      await visit(page, core.url, `/domains/${apiDomain.id}?tab=${tab}`, 'cards.example');
      await page.setViewportSize({ width: 390, height: 844 });
      for (const item of actions) {
        for (const verb of ['Edit', 'Delete']) await expectWithinWidth(page, page.getByRole('button', { name: `${verb} ${item}`, exact: true }), `${verb} ${item}`);
      }
      expect(await page.locator('.table-box').evaluateAll((boxes) => boxes.filter((box) => box.scrollWidth > box.clientWidth).length), `no table of ${tab} scrolls sideways`).to.equal(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
      const label = await page.locator('tbody td').first().evaluate((cell) => getComputedStyle(cell, '::before').content);
      expect(label, 'a cell shows its column name').to.equal(`"${tab === 'dns' ? 'Type' : tab === 'origins' ? 'Origin' : 'Name'}"`);
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(await page.locator('thead').first().evaluate((head) => getComputedStyle(head).display), 'a table at 1280 px').to.equal('table-header-group');
    }
    await visit(page, core.url, '/domains', 'Domains');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectWithinWidth(page, page.getByRole('row', { name: /owned\.example/ }).getByText('domains/owned.example.yaml'), 'the managing file');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('wrote no errors to the browser console', () => {
    // Chromium logs every 4xx answer; the deliberate ones (the refused settings and record) are shown by the page itself.
    expect(consoleErrors.filter((error) => !/^Failed to load resource: the server responded with a status of 422/.test(error))).to.deep.equal([]);
  });
});

// Time-axis labels of a 24-hour window: whole hours of the viewer's clock ("14:00"), evenly spaced, spanning at most a day.
function expectLastDayInHours(labels: string[], chart: string): void {
  expect(labels.length, `${chart}: ticks over the day`).to.be.at.least(4);
  for (const label of labels) expect(label, `${chart}: a time axis label`).to.match(/^\d{2}:00$/);
  const hours = labels.map((label) => Number(label.slice(0, 2)));
  const steps = hours.slice(1).map((hour, index) => (hour - hours[index] + 24) % 24);
  expect(new Set(steps).size, `${chart}: evenly spaced ${labels.join(', ')}`).to.equal(1);
  expect(steps[0] * steps.length, `${chart}: within 24 hours`).to.be.at.most(24);
}

async function expectFocusOn(page: Page, label: string, why: string): Promise<void> {
  await page.waitForFunction((expected) => document.activeElement?.getAttribute('aria-label') === expected, label, { timeout: 5000 }).catch(() => undefined);
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), why).to.equal(label);
}

async function expectTitle(page: Page, title: string): Promise<void> {
  // The title is set in an effect after the view renders (a domain's once it has loaded).
  await page.waitForFunction((expected) => document.title === expected, title, { timeout: 5000 }).catch(() => undefined);
  expect(await page.title()).to.equal(title);
}

async function expectWithinWidth(page: Page, target: ReturnType<Page['locator']>, what: string): Promise<void> {
  const box = await target.boundingBox();
  expect(box, `${what} is shown`).to.not.equal(null);
  const width = page.viewportSize()!.width;
  expect(box!.x, `${what} starts on screen`).to.be.at.least(0);
  expect(box!.x + box!.width, `${what} ends within ${width} px`).to.be.at.most(width);
}

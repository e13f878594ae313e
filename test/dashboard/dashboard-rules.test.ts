import { expect } from 'chai';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { expectAccessibleAtBothWidths } from '../support/dashboard-browser.js';
import { TestCore, type Json } from '../support/core.js';

// Rules as forms (issue 23, item 16): each kind through its form only, errors at the field they
// name, the JSON view as another view of the same rule, and fixed values as selects.

const ADMIN = { username: 'rules-admin', password: 'rules-password-1' };
const SERVER_FIELDS = ['id', 'domain_id', 'created_at', 'updated_at'];

// A stored rule as its kind's request would carry it: without what the server adds, and without nulls.
function asRequest(rule: Json): Json {
  return Object.fromEntries(Object.entries(rule).filter(([key, value]) => !SERVER_FIELDS.includes(key) && value !== null));
}

// The text of the elements an input's aria-describedby names.
async function description(input: Locator): Promise<string> {
  return input.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
}

describe('rules as forms in the dashboard', function () {
  this.timeout(180000);
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  let domain: Json;
  const consoleErrors: string[] = [];

  const checkLayouts = (name: string) => expectAccessibleAtBothWidths(page, name, name);

  async function openNewRule(kind: string): Promise<Locator> {
    await page.goto(`${core.url}/domains/${domain.id}?tab=rules`);
    await page.getByLabel('Kind').selectOption(kind);
    await page.getByRole('button', { name: 'New rule' }).click();
    return page.getByRole('form', { name: 'New rule' });
  }

  async function addRow(form: Locator, button: string, label: string, value: string, how?: string) {
    await form.getByRole('button', { name: button, exact: true }).click();
    if (how) await form.getByLabel(`${label}: how it matches`).selectOption(how);
    await form.getByLabel(label, { exact: true }).fill(value);
  }

  async function submitAndRead(form: Locator, kind: string, name: string): Promise<Json> {
    await form.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('cell', { name, exact: true }).waitFor();
    const rules = (await core.get(`/api/v1/domains/${domain.id}/${kind}`)).data as Json[];
    return asRequest(rules.find((rule) => rule.name === name));
  }

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${core.url}/`);
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    core.token = JSON.parse((await page.evaluate(() => sessionStorage.getItem('cdn.session')))!).token;
    domain = await core.createDomain('rules.example');
  });
  after(async () => {
    await browser?.close();
    await core?.stop();
  });
  afterEach(() => {
    // Chromium logs every 4xx answer; the deliberate refusals (422) are shown by the page itself.
    expect(consoleErrors.filter((error) => !/^Failed to load resource: the server responded with a status of 422/.test(error)), 'browser console errors').to.deep.equal([]);
  });

  it('creates a redirect through its form (match rows, methods, a status code to choose), and the API reads back what was filled in', async () => {
    const form = await openNewRule('redirects');
    await form.getByLabel('Name', { exact: true }).fill('old blog');
    await addRow(form, 'Add host', 'Host 1', 'www.rules.example');
    await addRow(form, 'Add path', 'Path 1', '/blog/', 'prefix');
    await form.getByLabel('GET', { exact: true }).check();
    await form.getByLabel('HEAD', { exact: true }).check();
    await form.getByLabel('Target URL').fill('/news/');
    expect(await form.getByLabel('Status code').evaluate((select) => [...(select as HTMLSelectElement).options].map((option) => option.value))).to.deep.equal(['301', '302', '307', '308']);
    await form.getByLabel('Status code').selectOption('302');
    await form.getByLabel('Keep the query string').uncheck();
    await form.getByLabel('Keep the path').check();
    await checkLayouts('rules-form-redirect');
    expect(await submitAndRead(form, 'redirects', 'old blog')).to.deep.equal({
      name: 'old blog',
      enabled: true,
      priority: 1000,
      match: { hosts: [{ kind: 'exact', value: 'www.rules.example' }], paths: [{ kind: 'prefix', value: '/blog/' }], methods: ['GET', 'HEAD'] },
      target: '/news/',
      status_code: 302,
      preserve_query: false,
      preserve_path: true,
    });
  });

  it('creates a rate limit, showing the key header and challenge difficulty only when they apply', async () => {
    const form = await openNewRule('rate-limits');
    await form.getByLabel('Name', { exact: true }).fill('login');
    await form.getByLabel('Priority').fill('10');
    await addRow(form, 'Add path', 'Path 1', '/login', 'exact');
    await form.getByLabel('POST', { exact: true }).check();
    await form.getByLabel('Requests allowed (per period)').fill('20');
    await form.getByLabel('Period (seconds)').fill('60');
    expect(await form.getByLabel('Header to count by').count()).to.equal(0);
    await form.getByLabel('Count per').selectOption('header');
    await form.getByLabel('Header to count by').fill('X-Api-Key');
    expect(await form.getByLabel('Challenge difficulty (1–6)').count()).to.equal(0);
    await form.getByLabel('Action').selectOption('challenge');
    await form.getByLabel('Challenge difficulty (1–6)').fill('3');
    await checkLayouts('rules-form-rate-limit');
    expect(await submitAndRead(form, 'rate-limits', 'login')).to.deep.equal({
      name: 'login',
      enabled: true,
      priority: 10,
      match: { paths: [{ kind: 'exact', value: '/login' }], methods: ['POST'] },
      requests: 20,
      period_seconds: 60,
      key: 'header',
      key_header: 'X-Api-Key',
      action: 'challenge',
      block_seconds: 60,
      challenge_difficulty: 3,
    });
  });

  it('creates a WAF rule with countries, excluded networks and managed signatures', async () => {
    const form = await openNewRule('waf-rules');
    await form.getByLabel('Name', { exact: true }).fill('managed');
    await addRow(form, 'Add country', 'Country 1', 'de');
    await addRow(form, 'Add excluded IP or CIDR', 'Excluded IP or CIDR 1', '10.0.0.0/8');
    await form.getByLabel('Action').selectOption('log');
    await form.getByLabel('SQL injection').check();
    await form.getByLabel('Cross-site scripting').check();
    await checkLayouts('rules-form-waf');
    expect(await submitAndRead(form, 'waf-rules', 'managed')).to.deep.equal({
      name: 'managed',
      enabled: true,
      priority: 1000,
      match: { countries: ['DE'], not_ips: ['10.0.0.0/8'] },
      action: 'log',
      signatures: ['sqli', 'xss'],
    });
  });

  it('creates a header rule with a request-header condition, and hides the value of a remove', async () => {
    const form = await openNewRule('headers');
    await form.getByLabel('Name', { exact: true }).fill('hsts');
    await form.getByRole('button', { name: 'Add header condition', exact: true }).click();
    await form.getByLabel('Header condition 1 name').fill('User-Agent');
    await form.getByLabel('Header condition 1: holds when').selectOption('matches');
    await form.getByLabel('Header condition 1 value: how it matches').selectOption('regex');
    await form.getByLabel('Header condition 1 value', { exact: true }).fill('curl|wget');
    await form.getByLabel('Header condition 1 negated').check();
    await form.getByLabel('Operation').selectOption('remove');
    expect(await form.getByLabel('Header value').count()).to.equal(0);
    await form.getByLabel('Operation').selectOption('set');
    await form.getByLabel('Header name').fill('Strict-Transport-Security');
    await form.getByLabel('Header value').fill('max-age=60');
    await checkLayouts('rules-form-header');
    expect(await submitAndRead(form, 'headers', 'hsts')).to.deep.equal({
      name: 'hsts',
      enabled: true,
      priority: 1000,
      match: { headers: [{ name: 'User-Agent', pattern: { kind: 'regex', value: 'curl|wget' }, negate: true }] },
      phase: 'response',
      operation: 'set',
      header_name: 'strict-transport-security',
      value: 'max-age=60',
    });
  });

  it('creates an IP rule with a query condition', async () => {
    const form = await openNewRule('ip-rules');
    await form.getByLabel('Name', { exact: true }).fill('office');
    await form.getByRole('button', { name: 'Add query condition', exact: true }).click();
    await form.getByLabel('Query condition 1 name').fill('debug');
    await form.getByLabel('IP address or CIDR').fill('192.0.2.7/24');
    await form.getByLabel('Action').selectOption('allow');
    await form.getByLabel('Enabled').uncheck();
    await checkLayouts('rules-form-ip');
    expect(await submitAndRead(form, 'ip-rules', 'office')).to.deep.equal({
      name: 'office',
      enabled: false,
      priority: 1000,
      match: { query: [{ name: 'debug' }] },
      cidr: '192.0.2.0/24',
      action: 'allow',
    });
  });

  it('creates a cache rule with TTLs in seconds and a cache key built from rows', async () => {
    const form = await openNewRule('cache-rules');
    await form.getByLabel('Name', { exact: true }).fill('images');
    await addRow(form, 'Add path', 'Path 1', '/img/', 'prefix');
    await form.getByLabel('Path 1 case-sensitive').check();
    await form.getByLabel('Edge cache TTL (seconds)').fill('86400');
    await form.getByLabel('Browser cache TTL (seconds)').fill('3600');
    expect(await form.getByLabel('Query string in the cache key').evaluate((select) => [...(select as HTMLSelectElement).options].map((option) => option.value))).to.deep.equal(['', 'all', 'none', 'include', 'exclude']);
    await form.getByLabel('Query string in the cache key').selectOption('include');
    await form.getByRole('button', { name: 'Add parameter name', exact: true }).click();
    await form.getByLabel('Parameter name 1', { exact: true }).fill('v');
    await form.getByRole('button', { name: 'Add header', exact: true }).click();
    await form.getByLabel('Header 1', { exact: true }).fill('Accept');
    await form.getByLabel('A copy per country').check();
    await checkLayouts('rules-form-cache');
    expect(await submitAndRead(form, 'cache-rules', 'images')).to.deep.equal({
      name: 'images',
      enabled: true,
      priority: 1000,
      match: { paths: [{ kind: 'prefix', value: '/img/', case_sensitive: true }] },
      action: 'cache',
      edge_ttl_seconds: 86400,
      browser_ttl_seconds: 3600,
      cache_key: { query_strings: { mode: 'include', names: ['v'] }, headers: ['Accept'], country: true },
      cache_private: false,
    });
  });

  it('creates a page rule with settings chosen from selects and checkboxes', async () => {
    const form = await openNewRule('page-rules');
    await form.getByLabel('Name', { exact: true }).fill('assets');
    await form.getByLabel('URL pattern').fill('*.rules.example/assets/*');
    await form.getByLabel('Cache level').selectOption('cache_everything');
    await form.getByLabel('Edge cache TTL (seconds)').fill('600');
    await form.getByLabel('Always use HTTPS').check();
    expect(await form.getByLabel('Security level').evaluate((select) => [...(select as HTMLSelectElement).options].map((option) => option.value))).to.deep.equal(['', 'off', 'low', 'medium', 'high', 'under_attack']);
    await form.getByLabel('Security level').selectOption('high');
    await form.getByLabel('WAF', { exact: true }).check();
    await form.getByLabel('Forward to URL').fill('https://elsewhere.example/');
    expect(await form.getByLabel('Cache level').count(), 'a forwarding rule takes no other setting').to.equal(0);
    await form.getByLabel('Forward to URL').fill('');
    await checkLayouts('rules-form-page');
    expect(await submitAndRead(form, 'page-rules', 'assets')).to.deep.equal({
      name: 'assets',
      enabled: true,
      priority: 1000,
      match: {},
      url_pattern: '*.rules.example/assets/*',
      settings: { cache_level: 'cache_everything', edge_cache_ttl_seconds: 600, always_use_https: true, security_level: 'high', disable_features: ['waf'] },
    });
  });

  it('shows a bad value at the field it names, tied to it by aria-describedby, whether the form or the API finds it', async () => {
    const cache = await openNewRule('cache-rules');
    await cache.getByLabel('Edge cache TTL (seconds)').fill('99999999999');
    await cache.getByRole('button', { name: 'Add rule' }).click();
    const ttl = cache.getByLabel('Edge cache TTL (seconds)');
    expect(await ttl.getAttribute('aria-invalid')).to.equal('true');
    expect(await description(ttl)).to.include('Edge cache TTL (seconds) must be from 0 to 31536000');
    expect(await description(cache.getByLabel('Name', { exact: true }))).to.include('Name is required');
    expect(await cache.getByRole('alert').allTextContents()).to.include.members(['Edge cache TTL (seconds) must be from 0 to 31536000', 'Name is required']);
    await checkLayouts('rules-form-errors');
    expect((await core.get(`/api/v1/domains/${domain.id}/cache-rules`)).data.map((rule: Json) => rule.name), 'nothing was sent').to.deep.equal(['images']);
    await ttl.fill('600');
    expect(await ttl.getAttribute('aria-invalid'), 'a changed value is no longer marked').to.equal(null);
    expect(await description(ttl)).to.not.include('must be');

    // The API's refusals: a regex RE2 cannot run (in a match row), a header the proxy manages.
    const redirect = await openNewRule('redirects');
    await redirect.getByLabel('Name', { exact: true }).fill('lookahead');
    await addRow(redirect, 'Add path', 'Path 1', '/(?=admin)', 'regex');
    await redirect.getByLabel('Target URL').fill('/elsewhere');
    await redirect.getByRole('button', { name: 'Add rule' }).click();
    const path1 = redirect.getByLabel('Path 1', { exact: true });
    await redirect.locator('.field-error[role=alert]').waitFor();
    expect(await path1.getAttribute('aria-invalid')).to.equal('true');
    expect(await description(path1)).to.match(/lookahead|RE2/i);
    await path1.fill('^/admin');
    await redirect.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('cell', { name: 'lookahead', exact: true }).waitFor();

    const header = await openNewRule('headers');
    await header.getByLabel('Name', { exact: true }).fill('no keep-alive');
    await header.getByLabel('Header name').fill('Connection');
    await header.getByLabel('Header value').fill('close');
    await header.getByRole('button', { name: 'Add rule' }).click();
    const headerName = header.getByLabel('Header name');
    await header.locator('.field-error[role=alert]').waitFor();
    expect(await headerName.getAttribute('aria-invalid')).to.equal('true');
    expect(await description(headerName)).to.include('managed by the proxy');
    await headerName.fill('X-Frame-Options');
    expect(await headerName.getAttribute('aria-invalid'), 'the refusal of the old value goes with it').to.equal(null);
    expect(await description(headerName)).to.not.include('managed by the proxy');
    await header.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('cell', { name: 'no keep-alive', exact: true }).waitFor();
  });

  it('shows the same rule in the Advanced (JSON) view, and carries changes between the two views', async () => {
    await page.goto(`${core.url}/domains/${domain.id}?tab=rules`);
    await page.getByRole('button', { name: 'Edit rule old blog' }).click();
    const stored = asRequest((await core.get(`/api/v1/domains/${domain.id}/redirects`)).data.find((rule: Json) => rule.name === 'old blog'));
    await page.getByRole('button', { name: 'Advanced (JSON)' }).click();
    expect(await page.getByRole('button', { name: 'Advanced (JSON)' }).getAttribute('aria-pressed')).to.equal('true');
    const json = page.getByLabel('Rule old blog as JSON');
    expect(JSON.parse(await json.inputValue())).to.deep.equal(stored);
    await checkLayouts('rules-json-view');

    await json.fill(JSON.stringify({ ...stored, target: '/press/', status_code: 308 }));
    await page.getByRole('button', { name: 'Advanced (JSON)' }).click();
    const form = page.getByRole('form', { name: 'Rule old blog' });
    expect(await form.getByLabel('Target URL').inputValue()).to.equal('/press/');
    expect(await form.getByLabel('Status code').inputValue()).to.equal('308');
    await form.getByLabel('Path 1', { exact: true }).fill('/weblog/');

    await page.getByRole('button', { name: 'Advanced (JSON)' }).click();
    expect(JSON.parse(await json.inputValue())).to.deep.equal({ ...stored, target: '/press/', status_code: 308, match: { ...stored.match, paths: [{ kind: 'prefix', value: '/weblog/' }] } });
    await json.fill('{ "name": ');
    await page.getByRole('button', { name: 'Advanced (JSON)' }).click();
    expect(await description(page.getByRole('button', { name: 'Advanced (JSON)' }))).to.include('The form cannot show this JSON');
    await json.fill(JSON.stringify({ ...stored, target: '/press/' }));
    await page.getByRole('button', { name: 'Advanced (JSON)' }).click();
    await form.getByRole('button', { name: 'Save rule' }).click();
    await page.getByRole('cell', { name: /target: \/press\// }).waitFor();
    const saved = asRequest((await core.get(`/api/v1/domains/${domain.id}/redirects`)).data.find((rule: Json) => rule.name === 'old blog'));
    expect(saved).to.deep.equal({ ...stored, target: '/press/' });
  });

  it('offers fixed values as selects with the documented values, labelled in words, and saves what is chosen', async () => {
    const optionsOf = (select: Locator) => select.evaluate((element) => [...(element as HTMLSelectElement).options].map((option) => option.value));

    await page.goto(`${core.url}/settings`);
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    const security = page.getByRole('form', { name: 'Settings: security' });
    expect(await optionsOf(security.getByLabel('Security level'))).to.deep.equal(['off', 'low', 'medium', 'high', 'under_attack']);
    const analytics = page.getByRole('form', { name: 'Settings: analytics' });
    expect(await optionsOf(analytics.getByLabel('Default summary bucket'))).to.deep.equal(['minute', 'hour', 'day']);
    expect(await page.getByRole('form', { name: 'Settings: dns' }).getByLabel('Default record TTL (seconds)').inputValue()).to.equal('300');
    await security.getByLabel('Security level').selectOption('under_attack');
    await security.getByRole('button', { name: 'Save' }).click();
    await security.getByText('Saved.').waitFor();
    expect((await core.get('/api/v1/settings/security')).data.security_level).to.equal('under_attack');
    await checkLayouts('rules-settings-selects');

    await page.goto(`${core.url}/domains/${domain.id}?tab=ssl`);
    const ssl = page.getByRole('form', { name: 'SSL settings' });
    expect(await optionsOf(ssl.getByLabel('SSL mode'))).to.deep.equal(['off', 'flexible', 'full', 'strict']);
    expect(await optionsOf(ssl.getByLabel('Minimum TLS version'))).to.deep.equal(['1.0', '1.1', '1.2', '1.3']);
    expect(await description(ssl.getByLabel('HSTS max age (seconds)'))).to.include('From 0 to 63072000');
    await ssl.getByLabel('SSL mode').selectOption('strict');
    await ssl.getByRole('button', { name: 'Save' }).click();
    await ssl.getByText('Saved.').waitFor();
    expect((await core.get(`/api/v1/domains/${domain.id}/ssl`)).data.settings.mode).to.equal('strict');

    await page.goto(`${core.url}/domains/${domain.id}?tab=cache`);
    const cache = page.getByRole('form', { name: 'Cache settings' });
    expect(await optionsOf(cache.getByLabel('Query string mode'))).to.deep.equal(['include', 'sort', 'ignore']);
    await cache.getByLabel('Query string mode').selectOption('sort');
    await cache.getByLabel('Default edge cache TTL (seconds)').fill('120');
    await cache.getByRole('button', { name: 'Save' }).click();
    await cache.getByText('Saved.').waitFor();
    const cacheSettings = (await core.get(`/api/v1/domains/${domain.id}/cache/settings`)).data;
    expect([cacheSettings.query_string_mode, cacheSettings.default_edge_ttl_seconds]).to.deep.equal(['sort', 120]);

    await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'origin.rules.example' }, 201);
    await page.goto(`${core.url}/domains/${domain.id}?tab=origins`);
    await page.getByRole('button', { name: 'Edit origin origin.rules.example' }).click();
    const origin = page.getByRole('form', { name: 'Origin origin.rules.example' });
    expect(await optionsOf(origin.getByLabel('Role'))).to.deep.equal(['primary', 'backup']);
    await origin.getByLabel('Role').selectOption('backup');
    await origin.getByLabel('Weight (1–1000)').fill('70');
    await origin.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'backup', exact: true }).waitFor();
    const [saved] = (await core.get(`/api/v1/domains/${domain.id}/origins`)).data;
    expect([saved.role, saved.weight]).to.deep.equal(['backup', 70]);
  });

});

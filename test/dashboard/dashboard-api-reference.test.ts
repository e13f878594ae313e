import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expectAccessibleAtBothWidths, logIn } from '../support/dashboard-browser.js';
import { TestCore, type Json } from '../support/core.js';

const ADMIN = { username: 'reference-admin', password: 'reference-admin-password-1' };

function operationCount(document: Json): number {
  return Object.values(document.paths as Record<string, object>).reduce((sum, item) => sum + Object.keys(item).length, 0);
}

// The API reference view in Chromium: reached from the main navigation, rendered by the dashboard
// itself from the core's OpenAPI document (nothing from elsewhere).
describe('the dashboard: an API reference rendered from the OpenAPI document', function () {
  this.timeout(120000);
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('request', (request) => !request.url().startsWith(core.url) && foreignRequests.push(request.url()));
    await logIn(page, core.url, ADMIN);
  });
  after(async () => {
    await browser?.close();
    await core?.stop();
  });

  it('links the API reference from the main navigation, lists every operation of the document, and opens from a deep link', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API reference' }).click();
    await page.getByRole('heading', { level: 1, name: 'API reference' }).waitFor();
    const document = await core.get('/api/v1/openapi.json');
    await page.locator('details.operation').first().waitFor();
    expect(await page.locator('details.operation').count()).to.equal(operationCount(document));
    expect(await page.getByRole('link', { name: 'OpenAPI 3.1 document' }).getAttribute('href')).to.equal('/api/v1/openapi.json');
    expect(await page.title()).to.match(/^API reference/);
    await page.goto(`${core.url}/api-reference`);
    await page.getByRole('heading', { level: 1, name: 'API reference' }).waitFor();
    await page.locator('details.operation').first().waitFor();
  });

  it('shows an operation with its auth, parameters and example answer', async () => {
    const entry = page.locator('details#get-domains');
    await entry.locator('summary').click();
    const text = await entry.textContent();
    expect(text).to.include('Auth: API token or admin session');
    for (const parameter of ['limit', 'offset', 'q', 'status']) expect(text).to.include(parameter);
    expect(await entry.getByLabel('Example answer of GET /api/v1/domains').textContent()).to.include('"data"');
    const create = page.locator('details#post-domains');
    await create.locator('summary').click();
    expect(await create.getByLabel('Example body of POST /api/v1/domains').textContent()).to.include('"domain"');
    expect(await create.getByRole('list', { name: 'Body fields of POST /api/v1/domains' }).textContent()).to.include('domain (string, required)');
    expect(await entry.getByRole('list', { name: 'Answer fields of GET /api/v1/domains' }).textContent()).to.include('status ("pending_nameserver" | "active" | "disabled", required)');
    await expectAccessibleAtBothWidths(page, 'the API reference', 'api-reference');
  });

  it('narrows the list to the operations a filter names', async () => {
    await page.getByLabel('Filter operations').fill('/api/v1/gitops/');
    await page.locator('details#get-domains').waitFor({ state: 'detached' });
    const summaries = await page.locator('details.operation summary').allTextContents();
    expect(summaries.length).to.be.greaterThan(3);
    for (const summary of summaries) expect(summary).to.include('/api/v1/gitops/');
    await page.getByLabel('Filter operations').fill('no such operation');
    await page.getByText('No operation matches.').waitFor();
  });

  it('loads nothing from elsewhere and logs no error', () => {
    expect(foreignRequests).to.deep.equal([]);
    expect(consoleErrors).to.deep.equal([]);
  });
});

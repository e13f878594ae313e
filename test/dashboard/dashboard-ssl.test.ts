import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expectAccessibleAtBothWidths, logIn } from '../support/dashboard-browser.js';
import { TestCore, type Json } from '../support/core.js';
import { EdgeProcess } from '../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../support/edge-site.js';
import { eventually } from '../support/eventually.js';
import { makeTestChain, type TestChain } from '../support/test-certificates.js';

const ADMIN = { username: 'ssl-admin', password: 'ssl-password-1' };
const EDGE_TOKEN = 'cdnedge_dashboard-ssl-token-0123456789abcdef';
// The viewer's time zone and locale, neither the machine's: dates must be shown in them.
const VIEWER = { timezoneId: 'Asia/Kolkata', locale: 'en-GB' };
const local = (at: number) => new Date(at * 1000).toLocaleString(VIEWER.locale, { timeZone: VIEWER.timezoneId });

// The SSL tab in Chromium against a real core that stores keys (CDN_SSL_SECRET_KEY) and has no ACME
// directory and no edge: uploads run the core's real checks on certificates made with openssl,
// requested jobs wait in the queue, and the check finds no edge to connect to.
describe('the SSL tab of the dashboard', function () {
  this.timeout(120000);
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  let chain: TestChain;
  let domain: Json;
  let origin: TestOrigin | undefined;
  let edge: EdgeProcess | undefined;
  const consoleErrors: string[] = [];

  const openSsl = async (target: Json = domain) => {
    await page.goto(`${core.url}/domains/${target.id}?tab=ssl`);
    await page.getByRole('heading', { level: 2, name: 'SSL' }).waitFor();
    await page.waitForLoadState('networkidle');
  };
  const uploadForm = () => page.getByRole('form', { name: 'Upload certificate' });
  const certificates = () => page.getByRole('region', { name: `Certificates of ${domain.domain}` });
  const jobs = () => page.getByRole('region', { name: `Certificate jobs of ${domain.domain}` });

  before(async () => {
    chain = await makeTestChain(['ssl-ui.example', 'www.ssl-ui.example']);
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN, CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64') });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, ...VIEWER });
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    core.token = await logIn(page, core.url, ADMIN);
    domain = await core.createDomain('ssl-ui.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10', proxied: true }, 201);
  });

  // No test leaves errors in the browser console; Chromium logs every 4xx answer, and the deliberate
  // ones (a refused upload) are shown by the page itself.
  afterEach(() => {
    const unexpected = consoleErrors.splice(0).filter((error) => !/^Failed to load resource: the server responded with a status of 422/.test(error));
    expect(unexpected, 'browser console errors').to.deep.equal([]);
  });

  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await browser?.close();
    await core?.stop();
  });

  it('uploads a certificate through the form, lists it with its facts, and never shows its key again', async () => {
    await openSsl();
    await page.getByText(/No certificate yet/).waitFor();
    await uploadForm().getByLabel('Certificate (PEM)').fill(chain.leaf);
    await uploadForm().getByLabel('Private key (PEM)').fill(chain.leafKey);
    await uploadForm().getByLabel('Chain (PEM, optional)').fill(chain.intermediate);
    await uploadForm().getByRole('button', { name: 'Upload certificate' }).click();
    await uploadForm().getByRole('status').getByText('Uploaded: the certificate for ssl-ui.example, www.ssl-ui.example is now in force.').waitFor();

    const [stored] = (await core.get(`/api/v1/domains/${domain.id}/ssl/certificates`)).data;
    expect(stored).to.include({ source: 'manual', status: 'active', issuer: 'CN=CDN Test Intermediate' });
    const row = certificates().locator('tbody tr');
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    const daysLeft = Math.floor((stored.not_after - Date.now() / 1000) / 86400);
    expect(cells).to.deep.equal([
      'ssl-ui.example, www.ssl-ui.example',
      'Manual (uploaded)',
      'In force',
      'CN=CDN Test Intermediate',
      stored.serial,
      local(stored.not_before),
      `${local(stored.not_after)} (expires in ${daysLeft} days)`,
      'by hand: upload a new certificate before it expires',
    ]);
    expect(await row.locator('time').nth(1).getAttribute('datetime')).to.equal(new Date(stored.not_after * 1000).toISOString());

    expect(await uploadForm().getByLabel('Private key (PEM)').inputValue(), 'the key is cleared after the upload').to.equal('');
    expect(await uploadForm().getByLabel('Certificate (PEM)').inputValue()).to.equal('');
    expect(await page.content()).to.not.include(chain.leafKey.split('\n')[1]);
    await expectAccessibleAtBothWidths(page, 'SSL tab with a certificate', 'domain-ssl-certificate');
  });

  it('shows a key of another certificate refused at the private key field, storing nothing', async () => {
    const other = await makeTestChain(['other-ssl.example']);
    const before = (await core.get(`/api/v1/domains/${domain.id}/ssl/certificates`)).data;
    await openSsl();
    await uploadForm().getByLabel('Certificate (PEM)').fill(chain.leaf);
    await uploadForm().getByLabel('Private key (PEM)').fill(other.leafKey);
    await uploadForm().getByRole('button', { name: 'Upload certificate' }).click();
    const refusal = uploadForm().locator('#ssl-upload-private_key-error[role=alert]');
    await refusal.waitFor();
    expect(await refusal.textContent()).to.equal('does not belong to the certificate');
    const key = uploadForm().getByLabel('Private key (PEM)');
    expect(await key.getAttribute('aria-describedby')).to.equal('ssl-upload-private_key-help ssl-upload-private_key-error');
    expect(await key.getAttribute('aria-invalid')).to.equal('true');
    expect(await uploadForm().locator('.field-error[role=alert]').count(), 'only the field the API named').to.equal(1);
    expect((await core.get(`/api/v1/domains/${domain.id}/ssl/certificates`)).data).to.deep.equal(before);
    await expectAccessibleAtBothWidths(page, 'SSL tab with a refused upload', 'domain-ssl-refused');
    await key.fill(chain.leafKey);
    expect(await refusal.count(), 'the refusal goes once the key changes').to.equal(0);
  });

  it('says ACME is not configured, and shows the jobs "Renew now" and "Request certificate" queue', async () => {
    const { data: status } = await core.get(`/api/v1/domains/${domain.id}/ssl/acme-status`);
    expect(status.account.status).to.equal('not_configured');
    // What a verified delegation queues (the domain service's managed job), made here without a nameserver lookup.
    await core.db.sslJob.create({ data: { domain_id: domain.id, kind: 'managed', status: 'queued', hostnames: ['ssl-ui.example', '*.ssl-ui.example'] } });
    await openSsl();
    await page.getByText('ACME is not configured on this core (set CDN_SSL_ACME_DIRECTORY_URL to order certificates): requested jobs wait in the queue until it is.').waitFor();

    const renew = page.getByRole('form', { name: 'Renew now' });
    await renew.getByRole('button', { name: 'Renew now' }).click();
    await renew.getByRole('status').getByText(/^Issuance of www\.ssl-ui\.example requested: Waiting to run next run from /).waitFor();
    const renewed = (await core.get(`/api/v1/domains/${domain.id}/ssl/acme-status`)).data.jobs.find((job: Json) => job.kind === 'issue');
    expect(renewed).to.include({ status: 'queued', attempts: 0 });
    expect(renewed.hostnames).to.deep.equal(['www.ssl-ui.example']);

    const request = page.getByRole('form', { name: 'Request certificate' });
    const challenge = request.getByLabel('Challenge');
    expect(await challenge.locator('option').allTextContents()).to.deep.equal(['By the default rule', 'HTTP-01', 'DNS-01']);
    expect(await page.locator('#ssl-request-challenge-help').textContent()).to.include('a wildcard always uses DNS-01');
    // A name the API's schema refuses is named as `hostnames.1`: it is shown at the one hostnames input.
    await request.getByLabel('Hostnames (optional)').fill('ssl-ui.example bad_name!');
    await request.getByRole('button', { name: 'Request certificate' }).click();
    const refusal = request.locator('#ssl-request-hostnames-error[role=alert]');
    await refusal.waitFor();
    expect(await refusal.textContent()).to.include('hostnames.1');
    expect(await request.getByLabel('Hostnames (optional)').getAttribute('aria-invalid')).to.equal('true');
    await request.getByLabel('Hostnames (optional)').fill('ssl-ui.example, api.ssl-ui.example');
    await challenge.selectOption('dns-01');
    await request.getByRole('button', { name: 'Request certificate' }).click();
    await request.getByRole('status').getByText(/^Issuance of api\.ssl-ui\.example, ssl-ui\.example requested: Waiting to run/).waitFor();
    const requested = (await core.get(`/api/v1/domains/${domain.id}/ssl/acme-status`)).data.jobs.find((job: Json) => job.challenge === 'dns-01');
    expect(requested.hostnames).to.deep.equal(['api.ssl-ui.example', 'ssl-ui.example']);

    const rows = jobs().locator('tbody tr');
    await jobs().getByRole('cell', { name: 'api.ssl-ui.example, ssl-ui.example' }).waitFor();
    const table = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(table.map((cells) => [cells[0], cells[1], cells[2], cells[4]])).to.deep.equal([
      ['Issuance', 'api.ssl-ui.example, ssl-ui.example', 'dns-01', '0'],
      ['Issuance', 'www.ssl-ui.example', 'by the default rule', '0'],
      ['Issuance on activation (apex and wildcard)', 'ssl-ui.example, *.ssl-ui.example', 'by the default rule', '0'],
    ]);
    for (const cells of table) expect(cells[3]).to.match(/^Waiting to run next run from /);
    await expectAccessibleAtBothWidths(page, 'SSL tab with queued jobs', 'domain-ssl-jobs');
  });

  it('shows a job\'s attempts and last error', async () => {
    const { data: jobList } = await core.get(`/api/v1/domains/${domain.id}/ssl/acme-status`);
    const job = jobList.jobs.find((item: Json) => item.challenge === 'dns-01');
    await core.db.sslJob.update({ where: { id: job.id }, data: { status: 'failed', attempts: 3, last_error: 'urn:ietf:params:acme:error:dns: no TXT record found', finished_at: new Date() } });
    await openSsl();
    const row = jobs().locator('tbody tr', { hasText: 'api.ssl-ui.example' });
    const cells = await row.locator('td').allTextContents();
    expect(cells[3]).to.match(/^Failed at /);
    expect(cells.slice(4)).to.deep.equal(['3', 'urn:ietf:params:acme:error:dns: no TXT record found']);
  });

  it('shows when an ACME certificate in force renews, and "Renew now" queues its renewal', async () => {
    const acme = await core.createDomain('ssl-acme.example');
    const notAfter = new Date(Date.now() + 6 * 86400000 + 3600000);
    const renewAfter = new Date(Date.now() + 2 * 86400000);
    await core.db.sslCertificate.create({ data: { domain_id: acme.id, source: 'acme', status: 'active', hostnames: ['ssl-acme.example'], issuer: 'CN=Pebble Intermediate', serial_number: '0ABC', not_before: new Date(), not_after: notAfter, renew_after: renewAfter } });
    await openSsl(acme);
    const row = page.getByRole('region', { name: 'Certificates of ssl-acme.example' }).locator('tbody tr');
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(1, 3)).to.deep.equal(['ACME (issued by the CA)', 'In force']);
    expect(cells[6]).to.equal(`${local(notAfter.getTime() / 1000)} (expires in 6 days)`);
    expect(cells[7]).to.equal(`automatically after ${local(Math.floor(renewAfter.getTime() / 1000))}`);
    await page.getByRole('button', { name: 'Renew now' }).click();
    await page.getByRole('form', { name: 'Renew now' }).getByRole('status').getByText(/^Renewal of ssl-acme\.example requested: Waiting to run/).waitFor();
    await page.getByRole('region', { name: 'Certificate jobs of ssl-acme.example' }).getByRole('cell', { name: 'Renewal', exact: true }).waitFor();
    const [job] = (await core.get(`/api/v1/domains/${acme.id}/ssl/acme-status`)).data.jobs;
    expect(job).to.include({ kind: 'renew', status: 'queued' });
  });

  it('says why it could not check what the edges serve when no edge reports a TLS port', async () => {
    await openSsl();
    const check = page.getByRole('form', { name: 'Check what the edges serve' });
    await check.getByLabel('Hostname to check').fill('www.ssl-ui.example');
    await check.getByRole('button', { name: 'Check' }).click();
    await check.getByRole('status').getByText('Could not check www.ssl-ui.example: no edge in the pool reports a public_ip and https_port to connect to.').waitFor();
    await check.getByLabel('Hostname to check').fill('www.elsewhere.example');
    await check.getByRole('button', { name: 'Check' }).click();
    const refusal = check.locator('#ssl-check-hostname-error[role=alert]');
    await refusal.waitFor();
    expect(await refusal.textContent()).to.include('www.elsewhere.example');
    await expectAccessibleAtBothWidths(page, 'SSL tab with a check refused', 'domain-ssl-check');
  });

  it('shows in words the certificate a pool edge serves, and the TLS alert for a name without one', async () => {
    const served = await makeTestChain(['ssl-edge.example', 'www.ssl-edge.example']);
    origin = await TestOrigin.start('ssl-edge');
    const site = await createSite(core, 'ssl-edge.example', origin.port);
    const stored = (await core.post(`/api/v1/domains/${site.id}/ssl/manual-certificate`, { certificate: served.leaf, private_key: served.leafKey, chain: served.intermediate + served.root })).data;
    await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: EDGE_TOKEN, env: { CDN_EDGE_PUBLIC_IP: '127.0.0.1' } });
    await eventually('the edge to report its TLS port', async () => ((await core.db.edgeNode.findFirst({ where: { https_port: edge!.httpsPort } })) ? true : undefined));
    await openSsl(site);
    const check = page.getByRole('form', { name: 'Check what the edges serve' });
    await check.getByLabel('Hostname to check').fill('www.ssl-edge.example');
    await check.getByRole('button', { name: 'Check' }).click();
    const outcome = check.getByRole('status');
    await outcome.getByText(/^For www\.ssl-edge\.example, edge /).waitFor();
    expect(await outcome.textContent()).to.equal(
      `For www.ssl-edge.example, edge test-edge (127.0.0.1:${edge.httpsPort}) serves a certificate for ssl-edge.example, www.ssl-edge.example issued by CN=CDN Test Intermediate (serial ${stored.serial}), valid until ${local(stored.not_after)} (expires in ${Math.floor((stored.not_after - Date.now() / 1000) / 86400)} days), over TLSv1.3.` +
        'It covers www.ssl-edge.example.Its chain is valid.',
    );
    await check.getByLabel('Hostname to check').fill('nothing.ssl-edge.example');
    await check.getByRole('button', { name: 'Check' }).click();
    await outcome.getByText(/^Could not check nothing\.ssl-edge\.example on edge test-edge \(127\.0\.0\.1:\d+\): .*alert handshake failure/).waitFor();
    await expectAccessibleAtBothWidths(page, 'SSL tab with a check', 'domain-ssl-check-edge');
  });

  it('shows a git-owned domain\'s preferences read-only and still offers upload and renewal', async () => {
    const owned = await core.createDomain('ssl-git.example');
    await core.post('/api/v1/gitops/runs', { repo: 'https://git.example/cdn.git', branch: 'main', commit_sha: 'e'.repeat(40), trigger: 'webhook', status: 'applied', started_at: 1_700_000_000, finished_at: 1_700_000_001, domains: [{ domain: 'ssl-git.example', ok: true, applied: 1 }], managed: [{ domain: 'ssl-git.example', file: 'domains/ssl-git.example.yaml' }] }, 201);
    await openSsl(owned);
    await page.getByText(/The SSL preferences are part of domains\/ssl-git\.example\.yaml: change them there\. Certificates and their keys are never in git/).waitFor();
    expect(await page.getByRole('form', { name: 'SSL settings' }).count()).to.equal(0);
    const otherChain = await makeTestChain(['ssl-git.example']);
    await uploadForm().getByLabel('Certificate (PEM)').fill(otherChain.leaf);
    await uploadForm().getByLabel('Private key (PEM)').fill(otherChain.leafKey);
    await uploadForm().getByRole('button', { name: 'Upload certificate' }).click();
    await uploadForm().getByRole('status').getByText(/^Uploaded/).waitFor();
    expect((await core.get(`/api/v1/domains/${owned.id}/ssl/certificates`)).data.map((item: Json) => item.hostnames)).to.deep.equal([['ssl-git.example']]);
    await page.getByRole('button', { name: 'Renew now' }).waitFor();
    await expectAccessibleAtBothWidths(page, 'SSL tab of a git-owned domain', 'domain-ssl-git-owned');
  });
});

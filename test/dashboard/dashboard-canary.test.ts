import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expectAccessibleAtBothWidths, logIn } from '../support/dashboard-browser.js';
import { TestCore } from '../support/core.js';

const ADMIN = { username: 'canary-admin', password: 'canary-password-1' };

// The canary rollout's state and buttons in the overview's rollout view, in Chromium against a real core.
describe('the canary rollout on the dashboard overview', function () {
  this.timeout(120000);
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const canary = () => page.getByLabel('Canary rollout');

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password });
    const row = (version: number) => ({ version, checksum: `sum${version}`, size_bytes: 2, payload: Buffer.from('{}'), published_seq: BigInt(version), created_at: new Date(Date.now() - 5000) });
    await core.db.configSnapshot.createMany({ data: [row(1), row(2), row(3)] });
    await core.db.publishState.upsert({ where: { id: 1 }, create: { id: 1, active_version: 3, change_seq: 3n, published_seq: 3n, fleet_version: 1 }, update: { active_version: 3, change_seq: 3n, published_seq: 3n, fleet_version: 1 } });
    await core.db.configCanary.create({ data: { version: 2, baseline_version: 1, state: 'failed', canary_edges: ['edge-canary'], started_at: new Date(Date.now() - 60_000), decided_at: new Date(), reason: 'canary 5xx ratio 100.00% (30 of 30 requests, 30 origin errors) against 0.00% on version 1 (0 of 20), margin 1 points: above 1.00%' } });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await logIn(page, core.url, ADMIN);
  });
  after(async () => {
    await browser?.close();
    await core?.stop();
  });

  it('shows a failed canary version holding later ones with the numbers, and aborts it with a button (audited)', async () => {
    await canary().getByText('Version 2 failed on its canaries and was rolled back').waitFor();
    expect(await canary().textContent()).to.include('30 of 30 requests').and.include('the fleet serves version 1');
    await expectAccessibleAtBothWidths(page, 'the overview with a failed canary version', 'overview-canary');
    await canary().getByRole('button', { name: 'Abort version 2' }).click();
    await page.getByRole('button', { name: 'Abort version 2' }).waitFor({ state: 'detached', timeout: 10000 });
    expect((await core.db.configCanary.findUniqueOrThrow({ where: { version: 2 } })).state).to.equal('aborted');
    const [event] = (await core.get('/api/v1/audit?action=rollout.abort&limit=1')).data;
    expect(event).to.include({ actor: ADMIN.username, target_id: '2' });
    expect(consoleErrors).to.deep.equal([]);
  });
});

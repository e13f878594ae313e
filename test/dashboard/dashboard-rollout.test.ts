import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expectAccessibleAtBothWidths, logIn, postAsEdge } from '../support/dashboard-browser.js';
import { TestCore } from '../support/core.js';

const ADMIN = { username: 'rollout-admin', password: 'rollout-password-1' };
const EDGE_TOKEN = 'cdnedge_dashboard-rollout-token-0123456789';

// The overview's config rollout in Chromium against a real core; edges report through signed heartbeats.
describe('the config rollout on the dashboard overview', function () {
  this.timeout(120000);
  let core: TestCore;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  const beat = (id: string, version: number, extra: object = {}) => postAsEdge(core.url, { token: EDGE_TOKEN, id }, '/api/v1/edge/heartbeat', { edge_id: id, config_version: version, ...extra });
  const rollout = () => page.getByRole('region', { name: 'Config rollout' });

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    const row = (version: number, seq: number) => ({ version, checksum: `sum${version}`, size_bytes: 2, payload: Buffer.from('{}'), published_seq: BigInt(seq), created_at: new Date(Date.now() - 5000) });
    await core.db.configSnapshot.createMany({ data: [row(1, 1), row(2, 2)] });
    await core.db.publishState.upsert({ where: { id: 1 }, create: { id: 1, active_version: 2, change_seq: 2n, published_seq: 2n }, update: { active_version: 2, change_seq: 2n, published_seq: 2n } });
    await beat('edge-fast', 2);
    await beat('edge-slow', 1, { config_error: 'version 2: checksum mismatch' });
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

  it('shows how many pool edges serve the latest version, with the laggard and its error, and follows the rollout live', async () => {
    await rollout().getByText('1 of 2 pool edges serve version 2').waitFor();
    const slow = rollout().getByRole('row', { name: /edge-slow/ });
    expect(await slow.textContent()).to.include('reload failed').and.include('version 2: checksum mismatch');
    await expectAccessibleAtBothWidths(page, 'the overview with a rollout in progress', 'overview-rollout');

    await beat('edge-slow', 2);
    // No reload: the view polls.
    await rollout().getByText('2 of 2 pool edges serve version 2').waitFor({ timeout: 10000 });
    expect(await rollout().getByText('converged').count()).to.be.greaterThan(0);
  });

  it('shows the rollout of a version asked for', async () => {
    await rollout().getByRole('textbox', { name: 'Version' }).fill('1');
    await rollout().getByRole('button', { name: 'Show' }).click();
    await rollout().getByText('2 of 2 pool edges serve version 1').waitFor();
    expect(consoleErrors).to.deep.equal([]);
  });
});

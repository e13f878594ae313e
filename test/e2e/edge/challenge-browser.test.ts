import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { TestCore } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';

const TOKEN = 'cdnedge_e2e-challenge-token-0123456789abcde';
const SECRET = 'shared-clearance-secret-of-the-test-edges-0123';

// A real Chromium against a real `cdn edge`: the WAF rule challenges, the browser
// solves the proof of work, and the clearance it gets is honoured by a second edge
// that shares CDN_EDGE_CLEARANCE_SECRET.
describe('a challenge of the edge solved by a real browser', function () {
  this.timeout(90000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let other: EdgeProcess;
  let browser: Browser;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await TestOrigin.start('primary');
    const site = await createSite(core, 'example.com', origin.port);
    await core.post(`/api/v1/domains/${site.id}/waf-rules`, { name: 'prove it', match: { paths: [{ kind: 'prefix', value: '/protected' }] }, action: 'challenge', challenge_difficulty: 3 }, 201);
    await publish(core);
    const env = { CDN_EDGE_CLEARANCE_SECRET: SECRET };
    [edge, other] = await Promise.all([EdgeProcess.start({ coreUrl: core.url, token: TOKEN, edgeId: 'edge-a', env }), EdgeProcess.start({ coreUrl: core.url, token: TOKEN, edgeId: 'edge-b', env })]);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--host-resolver-rules=MAP www.example.com 127.0.0.1'] });
  });
  after(async () => {
    await browser?.close();
    await Promise.all([edge?.stop(), other?.stop()]);
    await origin?.stop();
    await core?.stop();
  });

  it('lands on the origin after the proof of work, and the clearance works on the other edge', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const url = `http://www.example.com:${edge.port}/protected/page`;
    const first = await page.goto(url);
    expect(first?.status()).to.equal(403);
    await page.waitForFunction(() => document.body?.innerText.startsWith('origin primary'), undefined, { timeout: 30000 });
    expect(page.url()).to.equal(url);
    const cookie = (await context.cookies()).find((candidate) => candidate.name === '__cdn_clearance');
    expect(cookie, 'clearance cookie').to.not.equal(undefined);
    await context.close();

    const withClearance = { headers: { cookie: `__cdn_clearance=${cookie!.value}` } };
    expect((await other.request('www.example.com', '/protected/elsewhere', withClearance)).status).to.equal(200);
    expect((await other.request('www.example.com', '/protected/elsewhere')).status).to.equal(403);
  });
});

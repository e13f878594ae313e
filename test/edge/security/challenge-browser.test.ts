import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { challengePhase, CLEARANCE_COOKIE } from '../../../src/edge/security/challenge-phase.js';
import { wafPhase } from '../../../src/edge/security/waf-phase.js';
import { activeConfig, rule } from '../rules/request-context.js';
import { startTestEdge, type TestEdge } from './edge-server.js';

// A real Chromium solves the challenge page: it must run the inline script under the
// page's CSP, post the answer, follow the 303 and come back with the clearance cookie.
// localhost is a secure context (crypto.subtle); example.com over plain HTTP is not,
// so there the page's own SHA-256 does the work.
describe('challenge page in a real browser', function () {
  this.timeout(30_000);
  let edge: TestEdge;
  let browser: Browser;

  before(async () => {
    const config = activeConfig({
      'waf-rules': [3, 4].map((level) => rule({ match: { paths: [{ kind: 'prefix', value: `/level${level}` }] }, action: 'challenge', challenge_difficulty: level })),
      'page-rules': [],
    }, { security_level: 'under_attack' }, 1);
    edge = await startTestEdge(config, [wafPhase], challengePhase({ secret: 'browser-test-secret', ttlSeconds: 600 }));
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', `--host-resolver-rules=MAP example.com 127.0.0.1`] });
  });
  after(async () => {
    await browser?.close();
    await edge?.close();
  });

  async function passes(origin: string, path: string, level: number): Promise<void> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const first = await page.goto(`${origin}${path}`);
      expect(first?.status()).to.equal(403);
      await page.waitForFunction(() => document.body?.innerText.startsWith('origin says hello'), undefined, { timeout: 20_000 });
      expect(page.url()).to.equal(`${origin}${path}`);
      expect(await page.innerText('body')).to.equal(`origin says hello ${path.split('?')[0]}`);
      const cookie = (await context.cookies()).find((c) => c.name === CLEARANCE_COOKIE);
      expect(cookie?.value).to.match(new RegExp(`^${level}\\.\\d+\\.[\\w-]{43}$`));
      expect(cookie).to.include({ httpOnly: true, sameSite: 'Lax', path: '/' });
      const again = await page.goto(`${origin}${path}`);
      expect(again?.status()).to.equal(200);
    } finally {
      await context.close();
    }
  }

  it('passes the level-1 browser check with crypto.subtle and lands on the original URL', async () => {
    await passes(`http://localhost:${edge.port}`, '/welcome?from=test', 1);
  });

  it('solves level-3 proof of work with crypto.subtle', async () => {
    await passes(`http://localhost:${edge.port}`, '/level3/page', 3);
  });

  it('solves level-4 proof of work with crypto.subtle', async () => {
    await passes(`http://localhost:${edge.port}`, '/level4/page', 4);
  });

  it('solves level-3 proof of work with its own SHA-256 on a plain-HTTP host', async () => {
    await passes(`http://example.com:${edge.port}`, '/level3/other', 3);
  });
});

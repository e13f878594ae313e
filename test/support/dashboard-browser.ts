import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signedHeaders } from '../../src/shared/signing.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

type Violation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

/** axe-core in the page: the serious and critical violations of WCAG A/AA rules, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's policy allows no inline script, rightly.
  await page.evaluate(await readFile(AXE, 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })).violations;
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

const SCREENSHOTS = new URL('../../test-output/dashboard', import.meta.url).pathname;

/**
 * The page as it is, checked with axe at 1280 and 390 px, and not scrolling sideways at 390 px; left
 * at 1280 px. With `screenshot`, each width is saved as test-output/dashboard/<screenshot>-<width>.png.
 */
export async function expectAccessibleAtBothWidths(page: Page, what: string, screenshot?: string): Promise<void> {
  if (screenshot) await mkdir(SCREENSHOTS, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  expect(await seriousViolations(page), `${what} at 1280 px`).to.deep.equal([]);
  if (screenshot) await page.screenshot({ path: path.join(SCREENSHOTS, `${screenshot}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await seriousViolations(page), `${what} at 390 px`).to.deep.equal([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${what} fits 390 px`).to.be.at.most(390);
  if (screenshot) await page.screenshot({ path: path.join(SCREENSHOTS, `${screenshot}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Opens a view of the dashboard at `base`, waits for its heading and for the API calls to settle, and checks it at both widths. */
export async function visit(page: Page, base: string, url: string, heading: string): Promise<void> {
  await page.goto(`${base}${url}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.waitForLoadState('networkidle');
  await expectAccessibleAtBothWidths(page, url);
}

/** Logs in through the login form; returns the session's bearer token (for API calls of the test). */
export async function logIn(page: Page, base: string, admin: { username: string; password: string }): Promise<string> {
  await page.goto(`${base}/`);
  await page.getByLabel('Username').fill(admin.username);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return JSON.parse((await page.evaluate(() => sessionStorage.getItem('cdn.session')))!).token;
}

/** POSTs `payload` to the core as an edge does, signed with the edge's token; asserts 200. */
export async function postAsEdge(base: string, edge: { token: string; id: string }, path: string, payload: object): Promise<void> {
  const body = JSON.stringify(payload);
  const headers = signedHeaders({ token: edge.token, edgeId: edge.id, method: 'POST', pathWithQuery: path, body });
  const answer = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  expect(answer.status, `${path}: ${await answer.clone().text()}`).to.equal(200);
}

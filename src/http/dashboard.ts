import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type Router } from 'express';

/** Where `npm run build:dashboard` (and postinstall) puts the dashboard. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../dist/dashboard', import.meta.url));

// The page loads only its own script, stylesheet and API: nothing from elsewhere, no inline code.
const PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function sendPage(page: string | undefined, res: Response): void {
  if (page === undefined) {
    res.status(503).type('text/plain').send('The dashboard is not built: run `npm run build:dashboard` (npm ci does it too).\n');
    return;
  }
  res.setHeader('Content-Security-Policy', PAGE_POLICY);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.type('html').send(page);
}

// Paths the API and health checks own: an unknown one there stays a JSON 404, never the page.
// Express matches paths case-insensitively and a client's base URL may end in a slash: so does this.
const NOT_PAGES = /^\/+(api|assets)(\/|$)|^\/+(health|cdn-health|ready|metrics)\/?$/i;

/**
 * Serves the browser dashboard beside the API: its hashed assets under /assets (cached for a
 * year, since a new build has new names), and its page for every other GET, so a deep link such
 * as /domains/<id> opens the view it names (the page routes in the browser).
 */
export function dashboardRouter(dir = DASHBOARD_DIR): Router {
  const router = express.Router();
  const indexFile = `${dir}/index.html`;
  const page = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : undefined;
  router.use('/assets', express.static(`${dir}/assets`, { index: false, redirect: false, fallthrough: true, setHeaders: (res) => res.setHeader('Cache-Control', 'public, max-age=31536000, immutable') }));
  router.get(/.*/, (req: Request, res: Response, next) => {
    if (NOT_PAGES.test(req.path)) return next();
    sendPage(page, res);
  });
  return router;
}

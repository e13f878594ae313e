import { createHash } from 'node:crypto';
import type { EdgeResponse } from '../pipeline/response.js';
import { CHALLENGE_SCRIPT } from './challenge-script.js';
import { PROOF_OF_WORK_BITS } from './challenge-token.js';

/** The reserved path challenge solutions are posted to, on every host. */
export const CHALLENGE_PATH = '/__cdn/challenge';

/** The status of a challenge page: 403 (the request is refused until the check passes; a 503 would read as an outage to monitors). */
export const CHALLENGE_STATUS = 403;

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:10vh auto;padding:0 1rem;color:#222}h1{font-size:1.6rem}';

function cspHash(source: string): string {
  return `'sha256-${createHash('sha256').update(source).digest('base64')}'`;
}

// The page loads nothing and runs only its own script; it may only post to its own origin.
const CONTENT_SECURITY_POLICY = `default-src 'none'; script-src ${cspHash(CHALLENGE_SCRIPT)}; style-src ${cspHash(STYLE)}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What a challenge page carries: the signed token, its level and the same-host path to return to. */
export type ChallengePageInput = { token: string; level: number; returnTo: string; requestId: string };

/** The self-contained challenge page (no external resources): its inline script solves the token and posts to CHALLENGE_PATH. */
export function challengePage(input: ChallengePageInput): EdgeResponse {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<title>Checking your browser</title><style>${STYLE}</style></head>
<body><h1>Checking your browser</h1>
<p id="cdn-status">This site checks that visitors use a real browser. This takes a moment and needs JavaScript.</p>
<noscript><p>Turn on JavaScript and reload the page to continue.</p></noscript>
<form id="cdn-challenge" method="POST" action="${CHALLENGE_PATH}" data-bits="${PROOF_OF_WORK_BITS[input.level] ?? 0}">
<input type="hidden" name="token" value="${escapeHtml(input.token)}"><input type="hidden" name="return" value="${escapeHtml(input.returnTo)}"><input type="hidden" name="nonce" value="">
</form>
<p><small>Request id: ${escapeHtml(input.requestId)}. Served by the CDN edge.</small></p>
<script>${CHALLENGE_SCRIPT}</script></body></html>
`;
  const body = Buffer.from(html);
  return {
    status: CHALLENGE_STATUS,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-frame-options': 'DENY',
      'content-length': String(body.length),
    },
    body,
  };
}

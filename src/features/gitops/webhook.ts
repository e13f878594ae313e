import { createHmac } from 'node:crypto';
import { AuthError } from '../../http/errors.js';
import { secretsEqual } from '../../http/tokens.js';

/**
 * Verifies a push hook: GitHub and Gitea sign the raw body with HMAC-SHA256
 * (`X-Hub-Signature-256: sha256=<hex>`, Gitea also `X-Gitea-Signature: <hex>`);
 * GitLab sends the secret itself (`X-Gitlab-Token`). Throws AuthError otherwise.
 */
export function verifyWebhook(secret: string | undefined, headers: Record<string, string | undefined>, rawBody: Buffer): void {
  if (!secret) throw new AuthError('webhooks are disabled', 'set CDN_GITOPS_WEBHOOK_SECRET to accept push hooks');
  const expected = createHmac('sha256', secret).update(rawBody).digest('hex');
  const github = headers['x-hub-signature-256'];
  if (github) {
    if (secretsEqual(github, `sha256=${expected}`)) return;
    throw new AuthError('invalid webhook signature');
  }
  const gitea = headers['x-gitea-signature'];
  if (gitea) {
    if (secretsEqual(gitea, expected)) return;
    throw new AuthError('invalid webhook signature');
  }
  const gitlab = headers['x-gitlab-token'];
  if (gitlab && secretsEqual(gitlab, secret)) return;
  throw new AuthError('invalid webhook signature', 'expected X-Hub-Signature-256, X-Gitea-Signature or X-Gitlab-Token');
}

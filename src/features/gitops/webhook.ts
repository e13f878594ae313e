import { createHmac } from 'node:crypto';
import { AuthError, HttpError, ValidationError } from '../../http/errors.js';
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

/** What the controller reads of a push hook: the pushed ref, when the event has one (a ping has none). */
export type PushPayload = { ref: string | null };

const FORM = 'application/x-www-form-urlencoded';

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

// GitHub's default delivery is a form whose `payload` field holds the JSON; GitLab and Gitea send JSON.
function payloadText(contentType: string | undefined, rawBody: Buffer): string {
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) return rawBody.toString('utf8');
  if (mediaType === FORM) {
    const payload = new URLSearchParams(rawBody.toString('utf8')).get('payload');
    if (payload === null) throw new ValidationError('payload', `a ${FORM} push hook carries its JSON in the payload field`);
    return payload;
  }
  throw new HttpError(415, 'unsupported webhook content type', undefined, `send application/json or ${FORM}, got ${mediaType || 'no content type'}`);
}

/** Reads a verified push hook sent as JSON or as a form with a `payload` field; 415 for other content types, 400 for bad JSON. */
export function readPushPayload(contentType: string | undefined, rawBody: Buffer): PushPayload {
  let payload: unknown;
  try {
    payload = JSON.parse(payloadText(contentType, rawBody));
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, 'malformed webhook payload', 'payload', (error as Error).message);
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new HttpError(400, 'malformed webhook payload', 'payload', 'the payload must be a JSON object');
  const { ref } = payload as { ref?: unknown };
  return { ref: typeof ref === 'string' ? ref : null };
}

/** Whether a push of `ref` concerns the followed branch: pushes to other branches and tags do not; events without a ref (ping) do. */
export function pushConcernsBranch(push: PushPayload, branch: string): boolean {
  return push.ref === null || push.ref === `refs/heads/${branch}`;
}

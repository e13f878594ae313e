import { withoutUrlCredentials } from '../shared/url-credentials.js';
import { ValidationError } from './errors.js';

/** The GitOps repository and commit a write comes from, as its caller declares them. */
export type GitopsSource = { repo: string; commit: string | null };

export const REPO_HEADER = 'x-cdn-gitops-repo';
export const COMMIT_HEADER = 'x-cdn-gitops-commit';

const COMMIT = /^[0-9a-f]{7,64}$/;
const MAX_REPO_LENGTH = 2048;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

// The repository travels percent-encoded (header values are bytes; a local path may not be ASCII).
function decodedRepo(raw: string): string {
  let repo: string;
  try {
    repo = decodeURI(raw);
  } catch {
    throw new ValidationError('X-CDN-GitOps-Repo', 'X-CDN-GitOps-Repo must be percent-encoded as encodeURI does');
  }
  if (repo.length > MAX_REPO_LENGTH || CONTROL.test(repo)) throw new ValidationError('X-CDN-GitOps-Repo', `X-CDN-GitOps-Repo must be at most ${MAX_REPO_LENGTH} characters without control characters`);
  return repo;
}

/**
 * The GitOps source of a request from X-CDN-GitOps-Repo (percent-encoded) and X-CDN-GitOps-Commit,
 * sent by the controller with its writes and recorded in their audit events; none without the
 * repository header. A commit that is not 7 to 64 hex digits, or a commit without a repository, is 422.
 */
export function gitopsSourceOf(headers: Record<string, string | undefined>): GitopsSource | undefined {
  const repo = headers[REPO_HEADER]?.trim();
  const commit = headers[COMMIT_HEADER]?.trim().toLowerCase();
  if (commit !== undefined && !COMMIT.test(commit)) throw new ValidationError('X-CDN-GitOps-Commit', 'X-CDN-GitOps-Commit must be a commit id of 7 to 64 hex digits');
  if (repo === undefined || repo === '') {
    if (commit !== undefined) throw new ValidationError('X-CDN-GitOps-Repo', 'X-CDN-GitOps-Commit needs X-CDN-GitOps-Repo, the repository it belongs to');
    return undefined;
  }
  return { repo: withoutUrlCredentials(decodedRepo(repo)), commit: commit ?? null };
}

/** The headers that declare a write's GitOps source (what gitopsSourceOf reads). */
export function gitopsSourceHeaders(source: GitopsSource): Record<string, string> {
  return { [REPO_HEADER]: encodeURI(source.repo), ...(source.commit ? { [COMMIT_HEADER]: source.commit } : {}) };
}

import type { ApiFailure } from './api.js';
import { useApi } from './use-api.js';

export type Owner = { repo: string; file: string; commit: string | null };
type Item = { domain: string; resource: string; key: string };
type Status = { repos: { repo: string; managed?: { domain: string; file: string; commit: string | null }[]; not_in_git?: Item[] }[] };

export type Ownership = {
  /** The repository that owns a domain, if one does. */
  of: (apex: string) => Owner | undefined;
  /** Items a git-owned domain keeps that its file does not list (prune: false): editable through the API. */
  isNotInGit: (apex: string, resource: string, key: string) => boolean;
  /** Whether the status was read: until then nothing is offered for editing (an owned domain must not look editable). */
  known: boolean;
  failure?: ApiFailure;
};

/**
 * Which domains a GitOps repository owns (GET /api/v1/gitops/status): the dashboard shows their
 * items read-only with the file that holds them, and offers YAML for a pull request instead of an
 * edit the controller would revert or report as drift.
 */
export function useOwnership(): Ownership {
  const status = useApi<Status>('/api/v1/gitops/status');
  const owners = new Map<string, Owner>();
  const notInGit = new Set<string>();
  for (const repo of status.data?.repos ?? []) {
    for (const item of repo.managed ?? []) owners.set(item.domain, { repo: repo.repo, file: item.file, commit: item.commit });
    for (const item of repo.not_in_git ?? []) notInGit.add(`${item.domain} ${item.resource} ${item.key}`);
  }
  return {
    of: (apex) => owners.get(apex),
    isNotInGit: (apex, resource, key) => notInGit.has(`${apex} ${resource} ${key}`),
    known: status.data !== undefined,
    failure: status.failure,
  };
}

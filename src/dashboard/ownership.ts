import { useApi } from './use-api.js';

export type Owner = { repo: string; file: string; commit: string | null };
type Status = { repos: { repo: string; managed?: { domain: string; file: string; commit: string | null }[]; last_run?: { not_in_git?: { domain: string; resource: string; key: string }[] } }[] };

/**
 * Which domains a GitOps repository owns (GET /api/v1/gitops/status): the dashboard shows their
 * items read-only with the file that holds them, and offers YAML for a pull request instead of an
 * edit the controller would revert or report as drift.
 */
export function useOwnership() {
  const status = useApi<Status>('/api/v1/gitops/status');
  const owners = new Map<string, Owner>();
  const notInGit = new Set<string>();
  for (const repo of status.data?.repos ?? []) {
    for (const item of repo.managed ?? []) owners.set(item.domain, { repo: repo.repo, file: item.file, commit: item.commit });
    for (const item of repo.last_run?.not_in_git ?? []) notInGit.add(`${item.domain} ${item.resource} ${item.key}`);
  }
  return {
    of: (apex: string): Owner | undefined => owners.get(apex),
    /** Items a git-owned domain keeps that its file does not list (prune: false): editable through the API. */
    isNotInGit: (apex: string, resource: string, key: string) => notInGit.has(`${apex} ${resource} ${key}`),
    loaded: status.data !== undefined || status.failure !== undefined,
  };
}

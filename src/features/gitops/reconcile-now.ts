import type { Triggerable } from '../../http/app.js';
import { ConflictError } from '../../http/errors.js';

/**
 * Checks that this core runs the controller of `repo` (CDN_GITOPS_REPO), which the route then
 * wakes: 409 otherwise, since a `cdn reconcile` process elsewhere cannot be reached from here.
 */
export function requestReconcile(controller: Triggerable | undefined, repo: string): { repo: string; requested: true } {
  if (!controller) throw new ConflictError('no controller in this core', 'repo', `this core reconciles no repository (CDN_GITOPS_REPO is not set); a \`cdn reconcile\` process reconciles ${repo} on its own interval`);
  if (controller.repo !== repo) throw new ConflictError('no controller in this core for that repository', 'repo', `this core reconciles another repository (in_core in GET /api/v1/gitops/status); a \`cdn reconcile\` process reconciles ${repo} on its own interval`);
  return { repo, requested: true };
}

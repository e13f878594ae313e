import type { AppDeps } from '../../http/app.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { requestReconcile } from './reconcile-now.js';
import { acceptRefusedPlan, gitopsStatus, listAcceptances, listRuns, recordRun } from './service.js';
import { pushConcernsBranch, readPushPayload, verifyWebhook } from './webhook.js';

function textParam(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Controller run reports, status, reconcile now, and the push webhook that wake the in-core controller. */
export function gitopsRoutes(deps: AppDeps): Route[] {
  return [
    { method: 'get', path: '/api/v1/gitops/status', response: 'gitops-status-answer', auth: 'api', handler: async ({ db }) => ({ data: await gitopsStatus(db, deps.config, deps.gitops?.controller?.repo) }) },
    { method: 'get', path: '/api/v1/gitops/runs', response: 'gitops-runs-answer', auth: 'api', paged: true, handler: async ({ db, query }) => ({ data: await listRuns(db, parsePaging(query)) }) },
    {
      method: 'post',
      path: '/api/v1/gitops/runs',
      response: 'post-gitops-runs-answer',
      auth: 'api',
      body: 'gitops-run',
      status: 201,
      handler: async ({ db, body }) => ({ data: await recordRun(db, body) }),
    },
    {
      method: 'post',
      path: '/api/v1/gitops/acceptances',
      response: 'gitops-acceptance-answer',
      auth: 'api',
      refusals: [409],
      body: 'gitops-accept',
      status: 201,
      audit: { action: 'gitops.accept_refused_plan', target: 'gitops_commit', targetId: (_context, result) => result?.data?.commit_sha },
      handler: async ({ db, body, actor }) => ({ data: await acceptRefusedPlan(db, body, actor.name) }),
      // The controller reads the acceptance through the API, so it is woken once it is committed.
      afterCommit: () => deps.gitops?.controller?.trigger('manual'),
    },
    {
      method: 'post',
      path: '/api/v1/gitops/reconcile',
      response: 'gitops-reconcile-answer',
      auth: 'api',
      refusals: [409],
      body: 'gitops-reconcile',
      status: 202,
      audit: { action: 'gitops.reconcile', target: 'gitops_repo', targetId: ({ body }) => body.repo },
      handler: async ({ body }) => ({ data: requestReconcile(deps.gitops?.controller, body.repo) }),
      // Woken once the audit event is committed, like an acceptance.
      afterCommit: () => deps.gitops?.controller?.trigger('request'),
    },
    {
      method: 'get',
      path: '/api/v1/gitops/acceptances',
      response: 'gitops-acceptance-list-answer',
      query: [
        { name: 'repo', description: 'Only acceptances of this repository.', schema: { type: 'string' } },
        { name: 'commit_sha', description: 'Only acceptances of this commit.', schema: { type: 'string' } },
      ],
      auth: 'api',
      paged: true,
      handler: async ({ db, query }) => ({ data: await listAcceptances(db, { repo: textParam(query.repo), commit_sha: textParam(query.commit_sha) }, parsePaging(query)) }),
    },
    {
      method: 'post',
      path: '/api/v1/gitops/webhook',
      response: 'post-gitops-webhook-answer',
      auth: 'public',
      refusals: [401],
      status: 202,
      rawBody: true,
      handler: async ({ headers, rawBody }) => {
        verifyWebhook(deps.config.gitopsWebhookSecret, headers, rawBody);
        const push = readPushPayload(headers['content-type'], rawBody);
        const controller = pushConcernsBranch(push, deps.config.gitopsBranch) ? deps.gitops?.controller : undefined;
        controller?.trigger('webhook');
        return { data: { triggered: Boolean(controller), ref: push.ref } };
      },
    },
  ];
}

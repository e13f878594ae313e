import { writeAudit } from '../../http/audit-writer.js';
import type { AppDeps } from '../../http/app.js';
import type { Route } from '../../http/route.js';
import { admitLoginAttempt, forgiveLoginAttempts } from './login-throttle.js';
import { currentAdmin, login, logout } from './service.js';

function sessionIdOf(actor: { type: string; sessionId?: string }): string {
  return (actor as { sessionId: string }).sessionId;
}

/** Admin session endpoints: login (public, throttled), me and logout (admin session). */
export function adminRoutes(deps: AppDeps): Route[] {
  return [
    {
      method: 'post',
      path: '/api/v1/admin/login',
      response: 'post-admin-login-answer',
      auth: 'public',
      refusals: [401, 429],
      body: 'admin-login',
      // Throttled per username and per client before the password is even checked (login-throttle.ts).
      handler: async ({ db, body, requestId, clientIp }) => {
        await admitLoginAttempt(deps.pool, body.username, clientIp);
        const result = await login(db, body.username, body.password, deps.config.adminSessionTtlSeconds);
        await forgiveLoginAttempts(deps.pool, body.username, result.user.id, clientIp);
        await writeAudit(db, {
          actor: { type: 'admin', name: result.user.username, userId: result.user.id, sessionId: '' },
          action: 'admin.login',
          targetType: 'admin_user',
          targetId: result.user.id,
          requestId,
        });
        return { data: result };
      },
    },
    {
      method: 'get',
      path: '/api/v1/admin/me',
      response: 'admin-me-answer',
      auth: 'admin-session',
      handler: async ({ db, actor }) => ({ data: await currentAdmin(db, sessionIdOf(actor)) }),
    },
    {
      method: 'post',
      path: '/api/v1/admin/logout',
      response: 'ok-answer',
      auth: 'admin-session',
      audit: { action: 'admin.logout', target: 'admin_session', targetId: ({ actor }) => sessionIdOf(actor) },
      handler: async ({ db, actor }) => {
        await logout(db, sessionIdOf(actor));
        return { ok: true };
      },
    },
  ];
}

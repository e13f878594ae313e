import type { AppDeps } from '../../http/app.js';
import type { Route } from '../../http/route.js';
import { testPowerDns } from '../../publish/dns/powerdns-connection.js';
import { putAnycast, anycastAddresses } from './anycast.js';
import { allSettings, assertNoProblems, documentProblems, groupValues, updateGroup } from './store.js';

/** Settings groups, validation, the PowerDNS connection test and the platform anycast addresses. */
export function settingsRoutes(deps: AppDeps): Route[] {
  return [
    { method: 'get', path: '/api/v1/settings', response: 'settings-answer', auth: 'api', handler: async ({ db }) => ({ data: await allSettings(db) }) },
    {
      method: 'post',
      path: '/api/v1/settings/validate',
      response: 'post-settings-validate-answer',
      auth: 'api',
      body: 'settings-validate',
      handler: async ({ body }) => {
        assertNoProblems(documentProblems(body));
        return { data: { valid: true } };
      },
    },
    { method: 'post', path: '/api/v1/settings/test/powerdns', response: 'post-settings-test-powerdns-answer', auth: 'api', handler: async () => ({ data: await testPowerDns(deps.config) }) },
    { method: 'get', path: '/api/v1/settings/:group', response: 'settings-one-answer', auth: 'api', handler: async ({ db, params }) => ({ data: await groupValues(db, params.group) }) },
    {
      method: 'patch',
      path: '/api/v1/settings/:group',
      response: 'settings-one-answer',
      auth: 'api',
      body: 'settings-group-patch',
      audit: { action: 'settings.update', target: 'settings_group', targetId: ({ params }) => params.group },
      publishes: true,
      handler: async ({ db, params, body, actor }) => ({ data: await updateGroup(db, params.group, body, actor.name) }),
    },
    {
      method: 'get',
      path: '/api/v1/admin/edge-network/anycast',
      response: 'anycast-addresses-answer',
      auth: 'api',
      handler: async ({ db }) => {
        const { ipv4, ipv6 } = await anycastAddresses(db);
        return { data: { anycast_ipv4: ipv4, anycast_ipv6: ipv6 } };
      },
    },
    {
      method: 'put',
      path: '/api/v1/admin/edge-network/anycast',
      response: 'anycast-addresses-answer',
      auth: 'api',
      body: 'anycast-put',
      audit: { action: 'anycast.update', target: 'settings_group', targetId: () => 'anycast' },
      publishes: true,
      handler: async ({ db, body, actor }) => ({ data: await putAnycast(db, body, actor.name) }),
    },
  ];
}

import type { AppDeps } from '../../http/app.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { validatorFor } from '../../http/validation.js';
import { listCertificates, storeManualCertificate } from './certificates.js';
import { requireSecretBox, secretBoxOf } from './key-storage.js';
import { getSsl, patchSslSettings, type SslSettingsInput } from './settings.js';

/** The documented defaults: what validating {} against the ssl-settings schema fills in. */
export function sslDefaults(deps: AppDeps): Required<SslSettingsInput> {
  const defaults = {};
  validatorFor(deps.ajv, 'ssl-settings-create')(defaults);
  return defaults as Required<SslSettingsInput>;
}

/** SSL overview, preferences and certificates. */
export function sslRoutes(deps: AppDeps): Route[] {
  const defaults = sslDefaults(deps);
  const box = secretBoxOf(deps.config);
  return [
    { method: 'get', path: '/api/v1/domains/:domainId/ssl', auth: 'api', handler: async ({ db, params }) => ({ data: await getSsl(db, params.domainId, defaults) }) },
    {
      method: 'patch',
      path: '/api/v1/domains/:domainId/ssl/settings',
      auth: 'api',
      body: 'ssl-settings-patch',
      audit: { action: 'ssl_settings.update', target: 'domain', targetId: ({ params }) => params.domainId },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await patchSslSettings(db, params.domainId, body, defaults) }),
    },
    {
      method: 'get',
      path: '/api/v1/domains/:domainId/ssl/certificates',
      auth: 'api',
      paged: true,
      handler: async ({ db, params, query }) => ({ data: await listCertificates(db, params.domainId, parsePaging(query)) }),
    },
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/ssl/manual-certificate',
      auth: 'api',
      body: 'ssl-manual-certificate',
      audit: { action: 'ssl_certificate.upload', target: 'ssl_certificate' },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await storeManualCertificate(db, requireSecretBox(box), params.domainId, body) }),
    },
  ];
}

import type { AppDeps } from '../../http/app.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { validatorFor } from '../../http/validation.js';
import { listCertificates, storeManualCertificate } from './certificates.js';
import { requireSecretBox, secretBoxOf } from './key-storage.js';
import { getSsl, patchSslSettings, type SslSettingsInput } from './settings.js';
import { acmeStatus, forceRenewal, requestCertificate } from './ssl-jobs.js';
import { httpChallengeAnswer } from './acme/acme-challenges.js';
import { NotFoundError } from '../../http/errors.js';

// Three paths SPEC.md lists for one action: queue the issuance of an ACME certificate (docs/ssl.md).
const REQUEST_PATHS = [
  { path: '/api/v1/domains/:domainId/ssl/request', status: 200 },
  { path: '/api/v1/domains/:domainId/ssl/acme/issue', status: 200 },
  { path: '/api/v1/domains/:domainId/ssl/request-cert', status: 202 },
];

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
    { method: 'get', path: '/api/v1/domains/:domainId/ssl', response: 'domains-ssl-answer', auth: 'api', handler: async ({ db, params }) => ({ data: await getSsl(db, params.domainId, defaults) }) },
    {
      method: 'patch',
      path: '/api/v1/domains/:domainId/ssl/settings',
      response: 'patch-domains-ssl-settings-answer',
      auth: 'api',
      body: 'ssl-settings-patch',
      audit: { action: 'ssl_settings.update', target: 'domain', targetId: ({ params }) => params.domainId },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await patchSslSettings(db, params.domainId, body, defaults) }),
    },
    {
      method: 'get',
      path: '/api/v1/domains/:domainId/ssl/certificates',
      response: 'ssl-certificate-list-answer',
      auth: 'api',
      paged: true,
      handler: async ({ db, params, query }) => ({ data: await listCertificates(db, params.domainId, parsePaging(query)) }),
    },
    ...REQUEST_PATHS.map(({ path, status }): Route => ({
      method: 'post',
      path,
      response: 'ssl-job-answer',
      auth: 'api',
      body: 'ssl-certificate-request',
      optionalBody: true,
      status,
      audit: { action: 'ssl_job.request', target: 'ssl_job' },
      handler: async ({ db, params, body }) => ({ data: await requestCertificate(db, params.domainId, body) }),
    })),
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/ssl/renew',
      response: 'ssl-job-answer',
      auth: 'api',
      status: 202,
      audit: { action: 'ssl_job.renew', target: 'ssl_job' },
      handler: async ({ db, params }) => ({ data: await forceRenewal(db, params.domainId) }),
    },
    {
      // What an edge answers an HTTP-01 validation with (docs/ssl.md, "HTTP-01").
      method: 'get',
      path: '/api/v1/edge/acme-challenge/:token',
      response: 'edge-acme-challenge-answer',
      query: [{ name: 'host', description: 'The hostname the CA validates (the request\'s Host at the edge).', schema: { type: 'string' }, required: true }],
      auth: 'edge',
      handler: async ({ db, params, query }) => {
        const value = await httpChallengeAnswer(db, params.token, typeof query.host === 'string' ? query.host : '');
        if (value === undefined) throw new NotFoundError('acme challenge', params.token);
        return { data: { key_authorization: value } };
      },
    },
    { method: 'get', path: '/api/v1/domains/:domainId/ssl/acme-status', response: 'domains-ssl-acme-status-answer', auth: 'api', handler: async ({ db, params }) => ({ data: await acmeStatus(db, deps.config, params.domainId) }) },
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/ssl/manual-certificate',
      response: 'ssl-certificate-answer',
      auth: 'api',
      refusals: [409],
      body: 'ssl-manual-certificate',
      audit: { action: 'ssl_certificate.upload', target: 'ssl_certificate' },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await storeManualCertificate(db, requireSecretBox(box), params.domainId, body) }),
    },
  ];
}

import type { AppDeps } from '../../http/app.js';
import { ValidationError } from '../../http/errors.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { validatorFor } from '../../http/validation.js';
import { RULE_KINDS, type RuleKind } from './kinds.js';
import { disableLegacyRateLimit, getLegacyRateLimit, putLegacyRateLimit } from './legacy-rate-limit.js';
import { exportRedirects, importRedirects } from './redirect-import.js';
import { testPageRules, testRedirects } from './rule-test.js';
import { createRule, createRules, deleteRule, listRules, updateRule } from './service.js';

const SCHEMA_NAMES: Record<string, string> = {
  redirects: 'redirect-rule',
  'rate-limits': 'rate-limit-rule',
  'waf-rules': 'waf-rule',
  headers: 'header-rule',
  'ip-rules': 'ip-rule',
  'cache-rules': 'cache-rule',
  'page-rules': 'page-rule',
};

function kindRoutes(kind: RuleKind): Route[] {
  const base = `/api/v1/domains/:domainId/${kind.path}`;
  const schema = SCHEMA_NAMES[kind.path];
  return [
    {
      method: 'get',
      path: base,
      response: `${schema}-list-answer`,
      auth: 'api',
      paged: true,
      handler: async ({ db, params, query }) => ({ data: await listRules(db, kind, params.domainId, parsePaging(query)) }),
    },
    {
      method: 'post',
      path: base,
      response: `${schema}-answer`,
      auth: 'api',
      body: `${schema}-create`,
      status: 201,
      audit: { action: `${kind.noun}.create`, target: kind.noun },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await createRule(db, kind, params.domainId, body) }),
      createMany: async ({ db, params }, bodies) => (await createRules(db, kind, params.domainId, bodies)).map((data) => ({ data })),
    },
    {
      method: 'patch',
      path: `${base}/:ruleId`,
      response: `${schema}-answer`,
      auth: 'api',
      body: `${schema}-patch`,
      audit: { action: `${kind.noun}.update`, target: kind.noun },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await updateRule(db, kind, params.domainId, params.ruleId, body) }),
    },
    {
      method: 'delete',
      path: `${base}/:ruleId`,
      response: 'ok-answer',
      auth: 'api',
      audit: { action: `${kind.noun}.delete`, target: kind.noun },
      publishes: true,
      handler: async ({ db, params }) => {
        await deleteRule(db, kind, params.domainId, params.ruleId);
        return { ok: true };
      },
    },
  ];
}

function exportFormat(query: Record<string, unknown>): 'json' | 'csv' {
  const format = query.format ?? 'json';
  if (format !== 'json' && format !== 'csv') throw new ValidationError('format', 'format must be json or csv');
  return format;
}

// Bulk import/export and dry-run tests of redirects and page rules, and the legacy single rate limit.
function extraRoutes(deps: AppDeps): Route[] {
  const domain = '/api/v1/domains/:domainId';
  const redirectSchema = validatorFor(deps.ajv, 'redirect-rule-create');
  return [
    {
      method: 'post',
      path: `${domain}/redirects/import`,
      response: 'post-domains-redirects-import-answer',
      auth: 'api',
      body: 'redirect-import',
      audit: { action: 'redirect.import', target: 'domain', targetId: ({ params }) => params.domainId },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await importRedirects(db, params.domainId, body, redirectSchema) }),
    },
    {
      method: 'get',
      path: `${domain}/redirects/export`,
      response: 'domains-redirects-export-answer',
      query: [{ name: 'format', description: 'json (default): the rules as bodies; csv: the CSV import format, for rules it can express.', schema: { type: 'string', enum: ['json', 'csv'], default: 'json' } }],
      auth: 'api',
      handler: async ({ db, params, query }) => ({ data: await exportRedirects(db, params.domainId, exportFormat(query)) }),
    },
    {
      method: 'post',
      path: `${domain}/redirects/test`,
      response: 'post-domains-redirects-test-answer',
      auth: 'api',
      body: 'rule-test',
      handler: async ({ db, params, body }) => ({ data: await testRedirects(db, params.domainId, body) }),
    },
    {
      method: 'post',
      path: `${domain}/page-rules/test`,
      response: 'post-domains-page-rules-test-answer',
      auth: 'api',
      body: 'rule-test',
      handler: async ({ db, params, body }) => ({ data: await testPageRules(db, params.domainId, body) }),
    },
    {
      method: 'get',
      path: `${domain}/rate-limit`,
      response: 'domains-rate-limit-answer',
      auth: 'api',
      handler: async ({ db, params }) => ({ data: await getLegacyRateLimit(db, params.domainId) }),
    },
    {
      method: 'put',
      path: `${domain}/rate-limit`,
      response: 'rate-limit-rule-answer',
      auth: 'api',
      body: 'legacy-rate-limit',
      audit: { action: 'rate_limit.put_legacy', target: 'rate_limit' },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await putLegacyRateLimit(db, params.domainId, body) }),
    },
    {
      method: 'delete',
      path: `${domain}/rate-limit`,
      response: 'ok-answer',
      auth: 'api',
      audit: { action: 'rate_limit.disable_legacy', target: 'rate_limit' },
      publishes: true,
      handler: async ({ db, params }) => {
        await disableLegacyRateLimit(db, params.domainId);
        return { ok: true };
      },
    },
  ];
}

/** List/create/patch/delete for each of the seven rule kinds, plus the redirect, page-rule and legacy extras. */
export function ruleRoutes(deps: AppDeps): Route[] {
  return [...extraRoutes(deps), ...RULE_KINDS.flatMap(kindRoutes)];
}

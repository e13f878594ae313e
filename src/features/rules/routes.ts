import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { RULE_KINDS, type RuleKind } from './kinds.js';
import { createRule, deleteRule, listRules, updateRule } from './service.js';

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
      auth: 'api',
      handler: async ({ db, params, query }) => ({ data: await listRules(db, kind, params.domainId, parsePaging(query)) }),
    },
    {
      method: 'post',
      path: base,
      auth: 'api',
      body: `${schema}-create`,
      status: 201,
      audit: { action: `${kind.noun}.create`, target: kind.noun },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await createRule(db, kind, params.domainId, body) }),
    },
    {
      method: 'patch',
      path: `${base}/:ruleId`,
      auth: 'api',
      body: `${schema}-patch`,
      audit: { action: `${kind.noun}.update`, target: kind.noun },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await updateRule(db, kind, params.domainId, params.ruleId, body) }),
    },
    {
      method: 'delete',
      path: `${base}/:ruleId`,
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

/** List/create/patch/delete for each of the seven rule kinds. */
export function ruleRoutes(): Route[] {
  return RULE_KINDS.flatMap(kindRoutes);
}

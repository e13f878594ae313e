import type { Db } from '../../db/client.js';
import { ValidationError } from '../../http/errors.js';
import { compileMatch } from '../../shared/rules/compile.js';
import { urlPatternMatch } from '../../shared/rules/page-rules.js';
import { redirectLocation, type RedirectAction } from '../../shared/rules/redirects.js';
import { compileRuleSet, firstMatch, prepareRequest, type RuleBase } from '../../shared/rules/rule-set.js';
import type { Match, RequestFacts } from '../../shared/rules/types.js';
import { queryValues } from '../../shared/rules/query-values.js';
import { normaliseHost } from '../../shared/request-host.js';
import { matchingPath, normalisePath } from '../../shared/request-path.js';
import { absoluteForm } from '../../shared/request-target.js';
import { ruleKind } from './kinds.js';
import { allRules, serializeRule } from './service.js';

export type RuleTestRequest = { url: string; method: string; headers?: Record<string, string>; cookies?: Record<string, string>; country?: string; ip?: string };

// The schema checks the URL's shape only; a port above 65535 or a bad host is found by parsing it.
function parsedUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new ValidationError('url', 'url is not a URL that can be parsed (check the host and the port)');
  }
}

// The path of the URL as written (the URL parser would already have removed dot segments
// and kept `//`): the tester reads it as the edge's door reads a request target.
function matchedPath(text: string): string {
  const target = absoluteForm(text)?.target ?? '/';
  const path = normalisePath(target.split(/[?#]/, 1)[0]);
  if (path === undefined) throw new ValidationError('url', 'the path of url holds a "%" that is not a percent-escape');
  return matchingPath(path);
}

/** The facts of a test request given as a URL plus optional method, headers, cookies, country and IP (422 naming `url` when it cannot be parsed). */
export function factsOf(request: RuleTestRequest): RequestFacts {
  const url = parsedUrl(request.url);
  return {
    host: normaliseHost(url.host) ?? url.hostname,
    path: matchedPath(request.url),
    method: request.method,
    query: queryValues(url.search.slice(1)),
    headers: Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
    cookies: request.cookies ?? {},
    country: request.country,
    ip: request.ip,
  };
}

/** Which redirect (if any) answers the request, and where it sends it. */
export async function testRedirects(db: Db, domainId: string, request: RuleTestRequest) {
  const rules = (await allRules(db, ruleKind('redirects'), domainId)) as unknown as (RuleBase & RedirectAction)[];
  const facts = factsOf(request);
  const hit = firstMatch(compileRuleSet(rules), prepareRequest(facts));
  if (!hit) return { matched: false, rule: null, evaluated: rules.filter((rule) => rule.enabled).length };
  return {
    matched: true,
    rule: serializeRule(hit.rule as never),
    status_code: hit.rule.status_code,
    location: redirectLocation(hit.rule, hit.captures, facts),
    evaluated: rules.filter((rule) => rule.enabled).length,
  };
}

type PageRule = RuleBase & { url_pattern: string; settings: Record<string, unknown> & { forwarding_url?: { url: string; status_code?: number } } };

/** Which page rule (if any) applies to the request, its settings, and the forwarding target when it has one. */
export async function testPageRules(db: Db, domainId: string, request: RuleTestRequest) {
  const rules = (await allRules(db, ruleKind('page-rules'), domainId)) as unknown as PageRule[];
  const facts = factsOf(request);
  // The URL pattern is the primary match (its wildcards give $1..$9); the rule's match is an extra condition.
  const byPattern = rules.map((rule) => ({ ...rule, match: urlPatternMatch(rule.url_pattern), extra: rule.match as Match }));
  const set = compileRuleSet(byPattern, (rule) => compileMatch(rule.extra).test);
  const hit = firstMatch(set, prepareRequest(facts));
  if (!hit) return { matched: false, rule: null, settings: null };
  const original = rules.find((rule) => rule.id === hit.rule.id)!;
  const forwarding = original.settings.forwarding_url;
  return {
    matched: true,
    rule: serializeRule(original as never),
    settings: original.settings,
    ...(forwarding
      ? { forwarding: { status_code: forwarding.status_code ?? 301, location: redirectLocation({ target: forwarding.url, status_code: forwarding.status_code ?? 301, preserve_query: false, preserve_path: false }, hit.captures, facts) } }
      : {}),
  };
}

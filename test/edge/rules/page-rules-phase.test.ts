import { expect } from 'chai';
import { pageRulesPhase } from '../../../src/edge/rules/page-rules-phase.js';
import { urlPatternMatch } from '../../../src/shared/rules/page-rules.js';
import { activeConfig, fakeContext, rule, type FakeRequest } from './request-context.js';

function pageRule(urlPattern: string, settings: Record<string, unknown>, priority = 1000) {
  return rule({ url_pattern: urlPattern, settings, priority, match: urlPatternMatch(urlPattern) });
}

describe('page-rules phase', () => {
  const config = activeConfig({
    'page-rules': [
      pageRule('example.com/old/*', { forwarding_url: { url: 'https://example.com/new/$1', status_code: 302 } }, 10),
      pageRule('example.com/moved', { forwarding_url: { url: '/elsewhere' } }, 20),
      pageRule('example.com/secure/*', { always_use_https: true, security_level: 'high' }, 30),
      pageRule('example.com/static/*', { cache_level: 'cache_everything', disable_features: ['waf'] }, 40),
    ],
  });

  const cases: { name: string; request: FakeRequest; status?: number; location?: string; page?: Record<string, unknown> }[] = [
    { name: 'forwards with the wildcard capture substituted', request: { url: '/old/a/b?x=1' }, status: 302, location: 'https://example.com/new/a/b' },
    { name: 'forwards with 301 when the rule sets no status', request: { url: '/moved' }, status: 301, location: '/elsewhere' },
    { name: 'percent-encodes a line break captured from the request', request: { url: '/old/%0D%0ASet-Cookie:x' }, status: 302, location: 'https://example.com/new/%0D%0ASet-Cookie:x' },
    { name: 'redirects plain HTTP to HTTPS with path and query', request: { url: '/secure/login?next=%2F', scheme: 'http' }, status: 301, location: 'https://example.com/secure/login?next=%2F' },
    { name: 'keeps the settings for later phases on HTTPS', request: { url: '/secure/login', scheme: 'https' }, page: { always_use_https: true, security_level: 'high' } },
    { name: 'keeps cache and feature settings for later phases', request: { url: '/static/app.js' }, page: { cache_level: 'cache_everything', disable_features: ['waf'] } },
    { name: 'leaves a request no rule covers alone', request: { url: '/other' } },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const ctx = fakeContext(config, c.request);
      const handled = pageRulesPhase.run(ctx);
      expect(handled).to.equal(c.status !== undefined);
      if (c.status !== undefined) {
        expect(ctx.response?.status).to.equal(c.status);
        expect(ctx.response?.headers.location).to.equal(c.location);
        expect(ctx.response?.body).to.equal(null);
      } else expect(ctx.response).to.equal(undefined);
      expect(ctx.page).to.deep.equal(c.page);
    });
  }

  it('switches a feature off through ctx.disabled', () => {
    const ctx = fakeContext(config, { url: '/static/app.js' });
    pageRulesPhase.run(ctx);
    expect(ctx.disabled('waf')).to.equal(true);
    expect(ctx.disabled('rate_limit')).to.equal(false);
  });
});

import { expect } from 'chai';
import { redirectsPhase } from '../../../src/edge/rules/redirects-phase.js';
import { activeConfig, fakeContext, rule } from './request-context.js';

describe('redirects phase', () => {
  const config = activeConfig({
    redirects: [
      rule({ priority: 1, match: { paths: [{ kind: 'regex', value: '^/blog/(\\d+)/(.*)$' }] }, target: '/posts/$2?id=$1', status_code: 308, preserve_query: false, preserve_path: false }),
      rule({ priority: 2, match: { paths: [{ kind: 'prefix', value: '/docs' }] }, target: 'https://docs.example.com', status_code: 302, preserve_query: true, preserve_path: true }),
      rule({ priority: 3, match: { paths: [{ kind: 'exact', value: '/a' }] }, target: '/b', status_code: 301, preserve_query: true, preserve_path: false }),
      rule({ priority: 4, match: { paths: [{ kind: 'exact', value: '/a' }] }, target: '/never', status_code: 301, preserve_query: true, preserve_path: false }),
    ],
  });

  const cases = [
    { name: 'substitutes regex captures into the target', url: '/blog/42/hello-world', status: 308, location: '/posts/hello-world?id=42' },
    { name: 'appends the path and the query when the rule asks', url: '/docs/intro?lang=en', status: 302, location: 'https://docs.example.com/docs/intro?lang=en' },
    { name: 'answers the first matching rule only', url: '/a?x=1', status: 301, location: '/b?x=1' },
    { name: 'percent-encodes control characters of the appended path', url: '/docs/%0D%0Ainjected', status: 302, location: 'https://docs.example.com/docs/%0D%0Ainjected' },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const ctx = fakeContext(config, { url: c.url });
      expect(redirectsPhase.run(ctx)).to.equal(true);
      expect(ctx.response?.status).to.equal(c.status);
      expect(ctx.response?.headers.location).to.equal(c.location);
    });
  }

  it('lets a request no redirect covers continue', () => {
    const ctx = fakeContext(config, { url: '/elsewhere' });
    expect(redirectsPhase.run(ctx)).to.equal(false);
    expect(ctx.response).to.equal(undefined);
  });
});

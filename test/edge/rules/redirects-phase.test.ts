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
      rule({ priority: 5, match: { paths: [{ kind: 'prefix', value: '/' }], hosts: [{ kind: 'exact', value: 'www.example.com' }] }, target: '/', status_code: 301, preserve_query: false, preserve_path: true }),
      rule({ priority: 6, match: { paths: [{ kind: 'regex', value: '^/go(.*)$' }] }, target: '/$1', status_code: 302, preserve_query: false, preserve_path: false }),
      rule({ priority: 7, match: { paths: [{ kind: 'regex', value: '^/to(.*)$' }] }, target: 'https://www.example.com$1', status_code: 302, preserve_query: false, preserve_path: false }),
    ],
  });

  const cases = [
    { name: 'substitutes regex captures into the target', url: '/blog/42/hello-world', status: 308, location: '/posts/hello-world?id=42' },
    { name: 'appends the path and the query when the rule asks', url: '/docs/intro?lang=en', status: 302, location: 'https://docs.example.com/docs/intro?lang=en' },
    { name: 'answers the first matching rule only', url: '/a?x=1', status: 301, location: '/b?x=1' },
    { name: 'percent-encodes control characters of the appended path', url: '/docs/%0D%0Ainjected', status: 302, location: 'https://docs.example.com/docs/%0D%0Ainjected' },
  ];

  // A Location starting with // (or /\, which browsers read alike) names another host.
  const offSite = [
    { name: 'keeps a preserved path that starts with // on this site', url: '//evil.example/x', host: 'www.example.com', location: '/evil.example/x' },
    { name: 'keeps a preserved path with encoded slashes on this site', url: '/%2F%2Fevil.example', host: 'www.example.com', location: '/evil.example' },
    { name: 'keeps a preserved path with characters Node cannot send in a header', url: '/caf%C3%A9/%C4%8A', host: 'www.example.com', location: '/caf%C3%A9/%C4%8A' },
    { name: 'keeps a preserved path with a backslash on this site', url: '/%5Cevil.example', host: 'www.example.com', location: '/%5Cevil.example' },
    { name: 'keeps a capture that starts with / on this site', url: '/go//evil.example', host: 'example.com', location: '/evil.example' },
    { name: 'keeps a capture from moving the host of an absolute target', url: '/to@evil.example', host: 'example.com', location: 'https://www.example.com%40evil.example' },
  ];

  for (const c of offSite) {
    it(c.name, () => {
      const ctx = fakeContext(config, { url: c.url, headers: { host: c.host } });
      expect(redirectsPhase.run(ctx)).to.equal(true);
      expect(ctx.response?.headers.location).to.equal(c.location);
    });
  }

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

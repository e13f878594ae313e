import { expect } from 'chai';
import { headerRulesPhase, requestHeaderRulesPhase } from '../../../src/edge/rules/header-rules-phase.js';
import type { RequestContext } from '../../../src/edge/pipeline/context.js';
import { activeConfig, fakeContext, rule } from './request-context.js';

function withResponse(ctx: RequestContext, headers: Record<string, string | string[]>): RequestContext {
  ctx.response = { status: 200, headers, body: null };
  return ctx;
}

describe('header-rules phases', () => {
  const api = { paths: [{ kind: 'prefix' as const, value: '/api' }] };
  const config = activeConfig({
    headers: [
      rule({ priority: 1, phase: 'response', operation: 'set', header_name: 'x-frame-options', value: 'DENY' }),
      rule({ priority: 2, phase: 'response', operation: 'add', header_name: 'vary', value: 'Origin' }),
      rule({ priority: 3, phase: 'response', operation: 'remove', header_name: 'x-powered-by', value: null }),
      rule({ priority: 4, match: api, phase: 'response', operation: 'set', header_name: 'cache-control', value: 'no-store' }),
      rule({ priority: 5, phase: 'response', operation: 'set', header_name: 'connection', value: 'close' }),
      rule({ priority: 6, phase: 'response', operation: 'set', header_name: 'x-injected', value: 'a\r\nset-cookie: x=1' }),
      rule({ priority: 6, phase: 'response', operation: 'set', header_name: 'x-check', value: 'ok \u2713' }),
      rule({ priority: 6, phase: 'request', operation: 'set', header_name: 'x-check', value: 'ok \u2713' }),
      rule({ priority: 7, match: api, phase: 'request', operation: 'set', header_name: 'x-api', value: '1' }),
      rule({ priority: 8, phase: 'request', operation: 'add', header_name: 'cookie', value: 'edge=1' }),
      rule({ priority: 9, phase: 'request', operation: 'remove', header_name: 'x-debug', value: null }),
      rule({ priority: 10, phase: 'request', operation: 'set', header_name: 'host', value: 'evil.example' }),
    ],
  });

  const responseCases: { name: string; url: string; before: Record<string, string | string[]>; after: Record<string, string | string[]> }[] = [
    {
      name: 'sets, adds and removes response headers in rule order',
      url: '/page',
      before: { vary: 'Accept-Encoding', 'x-powered-by': 'php' },
      after: { vary: ['Accept-Encoding', 'Origin'], 'x-frame-options': 'DENY' },
    },
    {
      name: 'applies only the rules whose match holds',
      url: '/api/users',
      before: {},
      after: { 'x-frame-options': 'DENY', vary: 'Origin', 'cache-control': 'no-store' },
    },
    {
      name: 'never applies a hop-by-hop header, a value with a line break or one Node cannot send',
      url: '/page',
      before: { connection: 'keep-alive' },
      after: { connection: 'keep-alive', 'x-frame-options': 'DENY', vary: 'Origin' },
    },
  ];

  for (const c of responseCases) {
    it(c.name, () => {
      const ctx = withResponse(fakeContext(config, { url: c.url }), c.before);
      expect(headerRulesPhase.run(ctx)).to.equal(false);
      expect(ctx.response?.headers).to.deep.equal(c.after);
    });
  }

  it('rewrites request headers before cache and origin, keeping Host', () => {
    const ctx = fakeContext(config, { url: '/api/x', headers: { cookie: 'a=1', 'x-debug': 'on' } });
    expect(requestHeaderRulesPhase.run(ctx)).to.equal(false);
    expect(ctx.headers).to.deep.equal({ host: 'example.com', cookie: 'a=1; edge=1', 'x-api': '1' });
  });

  it('leaves request headers alone in the response phase and response headers in the request phase', () => {
    const ctx = withResponse(fakeContext(config, { url: '/page', headers: { 'x-debug': 'on' } }), {});
    headerRulesPhase.run(ctx);
    expect(ctx.headers['x-debug']).to.equal('on');
    const other = withResponse(fakeContext(config, { url: '/page' }), {});
    requestHeaderRulesPhase.run(other);
    expect(other.response?.headers).to.deep.equal({});
  });
});

import { expect } from 'chai';
import { ipRulesPhase } from '../../../src/edge/security/ip-rules-phase.js';
import { isAllowed, requestedChallenge } from '../../../src/edge/security/security-state.js';
import { wafPhase } from '../../../src/edge/security/waf-phase.js';
import type { RequestContext } from '../../../src/edge/pipeline/context.js';
import { activeConfig, fakeContext, rule, type FakeRequest } from '../rules/request-context.js';

type Outcome = { handled: boolean; status?: number; findings: unknown[]; challenge?: number; allowed?: boolean };

function outcome(ctx: RequestContext, handled: boolean): Outcome {
  return {
    handled,
    ...(ctx.response ? { status: ctx.response.status } : {}),
    findings: ctx.findings.map((f) => ({ kind: f.kind, action: f.action, rule_id: f.rule_id, ...(f.details ? { details: f.details } : {}) })),
    ...(requestedChallenge(ctx) ? { challenge: requestedChallenge(ctx)?.level } : {}),
    ...(isAllowed(ctx) ? { allowed: true } : {}),
  };
}

describe('ip-rules phase', () => {
  const config = activeConfig(
    {
      'ip-rules': [
        rule({ id: 'office', priority: 1, cidr: '198.51.100.0/24', action: 'allow', match: { ips: ['198.51.100.0/24'] } }),
        rule({ id: 'bad-net', priority: 2, cidr: '203.0.113.0/24', action: 'block', match: { ips: ['203.0.113.0/24'] } }),
        rule({ id: 'v6', priority: 3, cidr: '2001:db8::/32', action: 'challenge', match: { ips: ['2001:db8::/32'] } }),
      ],
    },
    { block_status_code: 451 },
    4,
  );

  const cases: [string, FakeRequest, Outcome][] = [
    ['blocks a listed network with the configured status', { url: '/', ip: '203.0.113.9' }, { handled: true, status: 451, findings: [{ kind: 'ip_rule', action: 'block', rule_id: 'bad-net' }] }],
    ['marks an allowed network for the later phases', { url: '/', ip: '198.51.100.7' }, { handled: false, findings: [], allowed: true }],
    ['asks for a challenge at the default level', { url: '/', ip: '2001:db8::1' }, { handled: false, findings: [], challenge: 4 }],
    ['lets other addresses through', { url: '/', ip: '192.0.2.1' }, { handled: false, findings: [] }],
  ];
  for (const [name, request, expected] of cases) {
    it(name, () => {
      const ctx = fakeContext(config, request);
      expect(outcome(ctx, ipRulesPhase.run(ctx) as boolean)).to.deep.equal(expected);
    });
  }
});

describe('waf phase', () => {
  const config = activeConfig({
    'ip-rules': [rule({ id: 'office', cidr: '198.51.100.0/24', action: 'allow', match: { ips: ['198.51.100.0/24'] } })],
    'waf-rules': [
      rule({ id: 'admin', priority: 1, match: { paths: [{ kind: 'prefix', value: '/admin' }] }, action: 'block', signatures: [] }),
      rule({ id: 'bots', priority: 2, match: { headers: [{ name: 'User-Agent', pattern: { kind: 'regex', value: 'sqlmap' } }] }, action: 'challenge', challenge_difficulty: 5 }),
      rule({ id: 'managed-sqli', priority: 3, action: 'block', signatures: ['sqli'] }),
      rule({ id: 'watch-xss', priority: 4, action: 'log', signatures: ['xss'] }),
      rule({ id: 'partners', priority: 5, match: { paths: [{ kind: 'prefix', value: '/partner' }] }, action: 'allow' }),
      rule({ id: 'traversal', priority: 6, action: 'block', signatures: ['path_traversal'] }),
    ],
  });

  const cases: [string, FakeRequest, Outcome][] = [
    ['blocks a plain rule match', { url: '/admin/users' }, { handled: true, status: 403, findings: [{ kind: 'waf', action: 'block', rule_id: 'admin' }] }],
    ['asks for a challenge at the rule level', { url: '/', headers: { 'user-agent': 'sqlmap/1.7' } }, { handled: false, findings: [], challenge: 5 }],
    [
      'blocks a request that trips the rule signatures, naming set and part',
      { url: "/item?id=1'%20OR%201=1--" },
      { handled: true, status: 403, findings: [{ kind: 'waf', action: 'block', rule_id: 'managed-sqli', details: { signature: 'sqli', part: 'query' } }] },
    ],
    [
      'logs a request that trips a log rule',
      { url: '/search?q=%3Cscript%3E' },
      { handled: false, findings: [{ kind: 'waf', action: 'log', rule_id: 'watch-xss', details: { signature: 'xss', part: 'query' } }] },
    ],
    [
      'logs and lets the later rules decide',
      { url: '/files?f=%3Cscript%3E/../../etc/passwd' },
      {
        handled: true,
        status: 403,
        findings: [
          { kind: 'waf', action: 'log', rule_id: 'watch-xss', details: { signature: 'xss', part: 'query' } },
          { kind: 'waf', action: 'block', rule_id: 'traversal', details: { signature: 'path_traversal', part: 'query' } },
        ],
      },
    ],
    ['stops at an allow rule', { url: '/partner/files?f=../../etc/passwd' }, { handled: false, findings: [] }],
    // The allow rule matches the normalised path, which `..` has taken out of /partner.
    ['matches rules on the normalised path, so dot segments cannot climb into an allow rule', { url: '/partner/../../etc/passwd' }, { handled: true, status: 403, findings: [{ kind: 'waf', action: 'block', rule_id: 'traversal', details: { signature: 'path_traversal', part: 'path' } }] }],
    ['blocks every spelling of a blocked path', { url: '/.//%61dmin/%2e/users' }, { handled: true, status: 403, findings: [{ kind: 'waf', action: 'block', rule_id: 'admin' }] }],
    ['passes over signature rules the request does not trip', { url: '/files?f=../../etc/passwd' }, { handled: true, status: 403, findings: [{ kind: 'waf', action: 'block', rule_id: 'traversal', details: { signature: 'path_traversal', part: 'query' } }] }],
    ['lets a clean request through', { url: '/blog/union-station' }, { handled: false, findings: [] }],
  ];
  for (const [name, request, expected] of cases) {
    it(name, () => {
      const ctx = fakeContext(config, request);
      expect(outcome(ctx, wafPhase.run(ctx) as boolean)).to.deep.equal(expected);
    });
  }

  it('skips requests an IP rule allowed', () => {
    const ctx = fakeContext(config, { url: '/admin', ip: '198.51.100.1' });
    ipRulesPhase.run(ctx);
    expect(wafPhase.run(ctx)).to.equal(false);
    expect(ctx.findings).to.deep.equal([]);
  });

  it('skips requests whose page rule disables the WAF', () => {
    const ctx = fakeContext(config, { url: '/admin' });
    ctx.page = { disable_features: ['waf'] };
    expect(wafPhase.run(ctx)).to.equal(false);
  });

  it('applies every managed set with action block when managed_waf_default is on and the domain has no WAF rules', () => {
    const managed = activeConfig({}, { managed_waf_default: true });
    const attack = fakeContext(managed, { url: '/x?q=%3Cscript%3Ealert(1)' });
    expect(outcome(attack, wafPhase.run(attack) as boolean)).to.deep.equal({ handled: true, status: 403, findings: [{ kind: 'waf', action: 'block', rule_id: null, details: { signature: 'xss', part: 'query' } }] });
    const clean = fakeContext(managed, { url: '/x?q=hello' });
    expect(wafPhase.run(clean)).to.equal(false);
  });

  it('leaves the managed sets off by default and for domains with WAF rules', () => {
    const off = fakeContext(activeConfig({}), { url: '/x?q=%3Cscript%3E' });
    expect(wafPhase.run(off)).to.equal(false);
    const own = activeConfig({ 'waf-rules': [rule({ action: 'log', match: { paths: [{ kind: 'exact', value: '/nothing' }] } })] }, { managed_waf_default: true });
    const ctx = fakeContext(own, { url: '/x?q=%3Cscript%3E' });
    expect(wafPhase.run(ctx)).to.equal(false);
  });
});

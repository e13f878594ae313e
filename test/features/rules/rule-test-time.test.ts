import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

// The rule testers run on the core's event loop: a backtracking pattern there
// stalled every API request (a 27-character header took 11.8 s). These rules
// were all accepted before and each ran for hours on the inputs below.
const HEADER_RULES: [string, string][] = [
  ['x-digits', '(\\w|\\d)+$'],
  ['x-letters', '(a|aa)+$'],
  ['x-letters', '^(a|a)*$'],
  ['x-letters', '(.|a)*!x'],
  ['x-digits', '(\\d|\\d\\d)+x'],
];
const WILDCARD = '/*a*a*a*a*a*a*a*b';
const BOUND_MS = 200;

describe('rule testers on catastrophic patterns', () => {
  let core: TestCore;
  let base: string;
  before(async () => {
    core = await TestCore.start();
    const domain = await core.createDomain('time.example');
    base = `/api/v1/domains/${domain.id}`;
    for (const [index, [header, value]] of HEADER_RULES.entries()) {
      const match = { headers: [{ name: header, pattern: { kind: 'regex', value } }] };
      await core.post(`${base}/redirects`, { name: `header ${index}`, match, target: '/x' }, 201);
      await core.post(`${base}/page-rules`, { name: `header ${index}`, url_pattern: 'time.example/*', match, settings: { cache_level: 'bypass' } }, 201);
    }
    await core.post(`${base}/redirects`, { name: 'wildcard', match: { paths: [{ kind: 'wildcard', value: WILDCARD }] }, target: '/x' }, 201);
    await core.post(`${base}/page-rules`, { name: 'wildcard', url_pattern: `time.example${WILDCARD}`, settings: { cache_level: 'bypass' } }, 201);
  });
  after(async () => {
    await core.stop();
  });

  // The longest URL and header values the tester accepts, shaped to make a backtracking engine try every split.
  const probe = {
    url: `https://time.example/${'a'.repeat(4000)}`,
    headers: { 'X-Digits': `${'1'.repeat(8191)}!`, 'X-Letters': `${'a'.repeat(8191)}!` },
  };

  for (const tester of ['redirects', 'page-rules']) {
    it(`evaluates every ${tester} rule on the longest accepted inputs in under ${BOUND_MS} ms of CPU`, async () => {
      const started = process.cpuUsage();
      const result: Json = (await core.post(`${base}/${tester}/test`, probe)).data;
      const used = process.cpuUsage(started);
      expect(result.matched).to.equal(false);
      expect((used.user + used.system) / 1000).to.be.below(BOUND_MS);
    });
  }
});

// npm run bench:match — compiles 100 rules spread over the seven kinds (one domain's rule sets)
// and evaluates 1,000,000 generated requests against all of them on one core; prints the rate.
// Two rule mixes: "site" (rules shaped like real configurations: path prefixes, extensions,
// CIDRs, a few regexes) and "adversarial" (the property test's vocabulary: 2-4 conditions per
// rule, half of the patterns wildcards or regexes, a quarter with CIDR checks).
import { allMatches, compileRuleSet, firstMatch, prepareRequest, type RuleBase } from '../src/shared/rules/rule-set.js';
import type { Match, RequestFacts } from '../src/shared/rules/types.js';
import { generateMatch, generateRequest, random, type Rng } from '../test/shared/rules/generators.js';

const RULES = 100;
const REQUESTS = 1_000_000;
const KINDS = ['redirects', 'waf-rules', 'rate-limits', 'ip-rules', 'cache-rules', 'headers', 'page-rules'] as const;
const APPLY_ALL = new Set<string>(['headers']);
type Kind = (typeof KINDS)[number];

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];
const SECTIONS = ['blog', 'shop', 'docs', 'api', 'account', 'static', 'images', 'help', 'news', 'careers'];
const EXTENSIONS = ['css', 'js', 'png', 'jpg', 'svg', 'woff2', 'html'];

function siteMatch(rng: Rng, kind: Kind, index: number): Match {
  const section = pick(rng, SECTIONS);
  switch (kind) {
    case 'redirects':
      return index % 5 === 0 ? { paths: [{ kind: 'regex', value: `^/${section}/old/(\\d+)$` }] } : { paths: [{ kind: 'exact', value: `/${section}/page-${index}` }] };
    case 'waf-rules':
      return index % 3 === 0 ? { paths: [{ kind: 'prefix', value: '/admin' }], not_ips: ['10.0.0.0/8'] } : { paths: [{ kind: 'prefix', value: `/${section}/` }], methods: ['POST', 'PUT'] };
    case 'rate-limits':
      return { paths: [{ kind: 'prefix', value: `/api/v${1 + (index % 3)}/` }], methods: ['POST'] };
    case 'ip-rules':
      return { ips: [`203.0.${index % 256}.0/24`, `2001:db8:${index.toString(16)}::/48`] };
    case 'cache-rules':
      return { paths: [{ kind: 'wildcard', value: `*.${pick(rng, EXTENSIONS)}` }] };
    case 'headers':
      return { paths: [{ kind: 'prefix', value: `/${section}` }] };
    case 'page-rules':
      return { hosts: [{ kind: 'exact', value: index % 2 ? 'www.example.com' : 'shop.example.com' }], paths: [{ kind: 'wildcard', value: `/${section}/*` }] };
  }
}

function siteRequest(rng: Rng): RequestFacts {
  const section = pick(rng, SECTIONS);
  const file = rng() < 0.4 ? `asset-${Math.floor(rng() * 50)}.${pick(rng, EXTENSIONS)}` : `page-${Math.floor(rng() * 100)}`;
  return {
    host: pick(rng, ['www.example.com', 'shop.example.com', 'example.com']),
    path: `/${section}/${file}`,
    method: rng() < 0.85 ? 'GET' : 'POST',
    query: rng() < 0.3 ? { q: ['x'] } : {},
    headers: { 'user-agent': 'Mozilla/5.0', accept: '*/*' },
    cookies: {},
    country: pick(rng, ['US', 'DE', 'FR', 'JP']),
    ip: rng() < 0.8 ? `198.51.100.${Math.floor(rng() * 256)}` : `2001:db8:ff::${Math.floor(rng() * 1000).toString(16)}`,
  };
}

function run(title: string, matchFor: (rng: Rng, kind: Kind, index: number) => Match, requestFor: (rng: Rng) => RequestFacts): void {
  const rng = random(7);
  const rules = Array.from({ length: RULES }, (_, index): RuleBase & { kind: Kind } => {
    const kind = KINDS[index % KINDS.length];
    return { id: `rule-${index}`, name: `rule ${index}`, enabled: true, priority: Math.floor(rng() * 1000), kind, match: matchFor(rng, kind, index) };
  });
  const compileStarted = performance.now();
  const sets = KINDS.map((kind) => ({ all: APPLY_ALL.has(kind), set: compileRuleSet(rules.filter((rule) => rule.kind === kind)) }));
  const compileMs = performance.now() - compileStarted;
  const requests = Array.from({ length: 10_000 }, () => requestFor(rng));

  let hits = 0;
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const request = prepareRequest(requests[i % requests.length]);
    for (const { all, set } of sets) {
      if (all) hits += allMatches(set, request).length;
      else if (firstMatch(set, request)) hits++;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${title.padEnd(12)} ${Math.round(REQUESTS / seconds).toLocaleString('en').padStart(9)} requests/s against all ${RULES} rules ` +
      `(${seconds.toFixed(2)} s for ${REQUESTS.toLocaleString('en')}; compile ${compileMs.toFixed(1)} ms; ${(hits / REQUESTS).toFixed(2)} rule hits per request)`,
  );
}

run('site', siteMatch, siteRequest);
run('adversarial', (rng) => generateMatch(rng), generateRequest);

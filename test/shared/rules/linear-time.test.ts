import { expect } from 'chai';
import { compileMatch, type CompiledMatch } from '../../../src/shared/rules/compile.js';
import { MAX_REGEX_INPUT } from '../../../src/shared/rules/linear-regex.js';
import { prepareRequest } from '../../../src/shared/rules/rule-set.js';
import type { Match, RequestFacts } from '../../../src/shared/rules/types.js';
import { random } from './generators.js';

// Patterns that take exponential (or high-polynomial) time on a backtracking
// engine, each with inputs that trigger the backtracking. Before the matcher
// ran on RE2 and matched wildcards without backtracking, each of these ran
// for hours (a 27-character header already took 11.8 s).
const LONG = 100_000;
const CASES: { pattern: string; kind: 'regex' | 'wildcard'; inputs: (length: number) => string[] }[] = [
  { kind: 'regex', pattern: '(\\w|\\d)+$', inputs: (n) => ['1'.repeat(n) + '!', '1'.repeat(n)] },
  { kind: 'regex', pattern: '(a|aa)+$', inputs: (n) => ['a'.repeat(n) + '!', 'a'.repeat(n)] },
  { kind: 'regex', pattern: '^(a|a)*$', inputs: (n) => ['a'.repeat(n) + '!', 'a'.repeat(n)] },
  { kind: 'regex', pattern: '(.|a)*!x', inputs: (n) => ['a'.repeat(n), 'a'.repeat(n - 2) + '!x'] },
  { kind: 'regex', pattern: '(\\d|\\d\\d)+x', inputs: (n) => ['1'.repeat(n), '1'.repeat(n - 1) + 'x'] },
  { kind: 'regex', pattern: '^(a+)+$', inputs: (n) => ['a'.repeat(n) + '!', 'a'.repeat(n)] },
  { kind: 'wildcard', pattern: '/*a*a*a*a*a*a*a*b', inputs: (n) => ['/' + 'a'.repeat(n), '/' + 'a'.repeat(n - 1) + 'b'] },
  { kind: 'wildcard', pattern: `/*${'a'.repeat(400)}b*`, inputs: (n) => ['/' + 'a'.repeat(n), '/' + 'a'.repeat(n - 2) + 'b/'] },
];
const BOUND_MS = 200;

const facts = (path: string, header: string): RequestFacts => ({ host: 'example.com', path, method: 'GET', query: {}, headers: { 'x-probe': header }, cookies: {} });

// The CPU time of one evaluation (the test and, on a hit, the captures). CPU time, not
// wall time: the suite shares its cores, and waiting for one is not matching work.
function cpuMs(compiled: CompiledMatch, request: RequestFacts): number {
  const started = process.cpuUsage();
  const prepared = prepareRequest(request);
  if (compiled.test(prepared)) compiled.captures(prepared);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('pattern matching time', () => {
  for (const { kind, pattern, inputs } of CASES) {
    // A regex never sees more than MAX_REGEX_INPUT characters (longer values do not match, see the
    // test below), so only wildcards are timed on the long input.
    for (const length of kind === 'regex' ? [MAX_REGEX_INPUT - 1] : [MAX_REGEX_INPUT - 1, LONG]) {
      it(`evaluates ${kind} ${pattern.length > 40 ? `${pattern.slice(0, 40)}…` : pattern} on ${length.toLocaleString('en')}-character paths and headers in under ${BOUND_MS} ms of CPU`, () => {
        const asPath: Match = { paths: [{ kind, value: pattern }] };
        const asHeader: Match = { headers: [{ name: 'X-Probe', pattern: { kind, value: pattern, case_sensitive: true } }] };
        for (const match of [asPath, asHeader]) {
          const compiled = compileMatch(match);
          for (const input of inputs(length)) {
            expect(cpuMs(compiled, facts(input, input)), `${JSON.stringify(match).slice(0, 80)} on ${input.length} characters`).to.be.below(BOUND_MS);
          }
        }
      });
    }
  }

  it('runs regexes on values up to the input bound and never matches a longer one; wildcards have no bound', () => {
    const regex = compileMatch({ paths: [{ kind: 'regex', value: '^/a+$' }] });
    expect(regex.test(prepareRequest(facts(`/${'a'.repeat(MAX_REGEX_INPUT - 1)}`, '')))).to.equal(true);
    expect(regex.test(prepareRequest(facts(`/${'a'.repeat(MAX_REGEX_INPUT)}`, '')))).to.equal(false);
    const wildcard = compileMatch({ paths: [{ kind: 'wildcard', value: '/*a*b' }] });
    expect(wildcard.test(prepareRequest(facts(`/${'a'.repeat(LONG)}b`, '')))).to.equal(true);
  });

  it('gives each wildcard star the run a greedy backtracking (.*) would, on 20,000 generated cases', () => {
    const rng = random(20261123);
    const pick = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(rng() * alphabet.length)]).join('');
    let matched = 0;
    for (let i = 0; i < 20000; i++) {
      const glob = pick('ab/**', 1 + Math.floor(rng() * 7));
      const path = pick('ab/A', Math.floor(rng() * 10));
      const caseSensitive = rng() < 0.5;
      const reference = new RegExp(`^${glob.split('*').map(escapeRegex).join('(.*)')}$`, caseSensitive ? 's' : 'is').exec(path);
      const compiled = compileMatch({ paths: [{ kind: 'wildcard', value: glob, case_sensitive: caseSensitive }] });
      const prepared = prepareRequest(facts(path, ''));
      const actual = compiled.test(prepared) ? compiled.captures(prepared) : undefined;
      const expected = reference ? reference.slice(1) : undefined;
      if (JSON.stringify(actual) !== JSON.stringify(expected)) expect.fail(`glob ${glob} (case ${caseSensitive ? 'sensitive' : 'insensitive'}) on ${path}: ${JSON.stringify(actual)}, backtracking ${JSON.stringify(expected)}`);
      if (reference) matched++;
    }
    expect(matched, 'generated cases should match often enough to mean something').to.be.above(2000);
  });

  it('returns regex groups like RegExp#exec, unmatched groups as empty strings', () => {
    const compiled = compileMatch({ paths: [{ kind: 'regex', value: '^/(\\w+)(?:/(\\d+))?(/x)?$' }] });
    const prepared = prepareRequest(facts('/post/42', ''));
    expect(compiled.test(prepared)).to.equal(true);
    expect(compiled.captures(prepared)).to.deep.equal(['post', '42', '']);
  });
});

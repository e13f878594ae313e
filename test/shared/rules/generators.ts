import type { Match, NamedCondition, Pattern, PatternKind, RequestFacts } from '../../../src/shared/rules/types.js';

/** A small seeded PRNG (mulberry32) so generated cases are reproducible. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];
const maybe = (rng: Rng, chance: number) => rng() < chance;

const HOSTS = ['example.com', 'www.example.com', 'api.example.com', 'Shop.Example.com', 'static.example.net'];
const SEGMENTS = ['api', 'v1', 'v2', 'users', 'Images', 'img', 'admin', 'login', 'a.b', 'x'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD'];
const NAMES = ['q', 'id', 'lang', 'debug'];
const HEADERS = ['user-agent', 'x-debug', 'accept-language'];
const VALUES = ['1', 'en', 'de', 'curl/8.0', 'Mozilla/5.0', 'true', 'On'];
const COUNTRIES = ['US', 'DE', 'FR', 'JP', 'BR'];
const IPS = ['192.0.2.10', '192.0.2.200', '198.51.100.7', '2001:db8::1', '2001:db8:1::5', '::ffff:192.0.2.10', '203.0.113.9'];
const CIDRS = ['192.0.2.0/24', '192.0.2.128/25', '198.51.100.7', '2001:db8::/32', '2001:db8:1::/48', '10.0.0.0/8'];

function path(rng: Rng): string {
  const depth = 1 + Math.floor(rng() * 3);
  return `/${Array.from({ length: depth }, () => pick(rng, SEGMENTS)).join('/')}`;
}

function pattern(rng: Rng, sample: string): Pattern {
  const kind: PatternKind = pick(rng, ['exact', 'prefix', 'wildcard', 'regex'] as const);
  const cut = sample.slice(0, 1 + Math.floor(rng() * sample.length));
  const value = {
    exact: sample,
    prefix: cut,
    wildcard: `${cut}*`.replace(/^(.)/, maybe(rng, 0.3) ? '*' : '$1'),
    regex: `^${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(.*)$`,
  }[kind];
  return maybe(rng, 0.3) ? { kind, value, case_sensitive: maybe(rng, 0.5) } : { kind, value };
}

function named(rng: Rng, names: readonly string[]): NamedCondition {
  const name = pick(rng, names);
  const roll = rng();
  if (roll < 0.25) return { name, present: maybe(rng, 0.5) };
  return { name, pattern: pattern(rng, pick(rng, VALUES)), negate: maybe(rng, 0.2) };
}

/** A random match using every kind of condition, biased to match the generated requests often. */
export function generateMatch(rng: Rng): Match {
  const match: Match = {};
  if (maybe(rng, 0.5)) match.hosts = Array.from({ length: 1 + Math.floor(rng() * 2) }, () => pattern(rng, pick(rng, HOSTS).toLowerCase()));
  if (maybe(rng, 0.6)) match.paths = Array.from({ length: 1 + Math.floor(rng() * 2) }, () => pattern(rng, path(rng)));
  if (maybe(rng, 0.2)) match.methods = [pick(rng, METHODS), pick(rng, METHODS)];
  if (maybe(rng, 0.15)) match.query = [named(rng, NAMES)];
  if (maybe(rng, 0.15)) match.headers = [named(rng, HEADERS)];
  if (maybe(rng, 0.1)) match.cookies = [named(rng, NAMES)];
  if (maybe(rng, 0.15)) match.countries = [pick(rng, COUNTRIES)];
  if (maybe(rng, 0.1)) match.not_countries = [pick(rng, COUNTRIES)];
  if (maybe(rng, 0.15)) match.ips = [pick(rng, CIDRS)];
  if (maybe(rng, 0.1)) match.not_ips = [pick(rng, CIDRS)];
  return match;
}

function bag(rng: Rng, names: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) if (maybe(rng, 0.4)) values[name] = pick(rng, VALUES);
  return values;
}

// Query parameters, sometimes sent more than once (`?a=1&a=2`).
function repeatedBag(rng: Rng, names: readonly string[]): Record<string, string[]> {
  const values: Record<string, string[]> = {};
  for (const name of names) if (maybe(rng, 0.4)) values[name] = Array.from({ length: maybe(rng, 0.3) ? 2 : 1 }, () => pick(rng, VALUES));
  return values;
}

/** A random request from the same vocabulary as generateMatch. */
export function generateRequest(rng: Rng): RequestFacts {
  return {
    host: pick(rng, HOSTS),
    path: path(rng),
    method: pick(rng, METHODS),
    query: repeatedBag(rng, NAMES),
    headers: bag(rng, HEADERS),
    cookies: bag(rng, NAMES),
    country: maybe(rng, 0.9) ? pick(rng, COUNTRIES) : undefined,
    ip: maybe(rng, 0.95) ? pick(rng, IPS) : undefined,
  };
}

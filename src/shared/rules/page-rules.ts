import type { Match } from './types.js';

/**
 * The match of a page rule's URL pattern (`host/path`, `*` wildcards, no scheme):
 * the host part against the request host, the path part against the path.
 * A pattern without a path part (`example.com`) covers every path.
 */
export function urlPatternMatch(urlPattern: string): Match {
  const pattern = urlPattern.replace(/^[a-z]+:\/\//i, '');
  const slash = pattern.indexOf('/');
  const host = slash === -1 ? pattern : pattern.slice(0, slash);
  const path = slash === -1 ? '/*' : pattern.slice(slash);
  return { hosts: [{ kind: 'wildcard', value: host }], paths: [{ kind: 'wildcard', value: path }] };
}

/** Why a URL pattern is unacceptable, or undefined. */
export function urlPatternProblem(urlPattern: string): string | undefined {
  if (/^[a-z]+:\/\//i.test(urlPattern)) return 'leave the scheme out of url_pattern (it matches http and https)';
  if (/\s/.test(urlPattern)) return 'url_pattern cannot contain white space';
  const host = urlPattern.split('/')[0];
  if (!/^[a-z0-9*.-]+$/i.test(host) || host.includes('..')) return `${JSON.stringify(host)} is not a host pattern (letters, digits, "-", "." and "*")`;
  return undefined;
}

import type { Method, Route } from './route.js';

export type MatchedRoute = { route: Route; params: Record<string, string> };

type Compiled = { route: Route; segments: string[] };

function segmentsOf(path: string): string[] {
  return path.split('/').slice(1);
}

// A `:name` segment matches any one non-empty segment; the others match exactly.
function paramsOf(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index];
    const actual = segments[index];
    if (expected.startsWith(':')) {
      if (!actual) return undefined;
      params[expected.slice(1)] = actual;
    } else if (expected !== actual) return undefined;
  }
  return params;
}

/**
 * Finds the route a method and path address, as express would for the routes' plain
 * `/literal/:param` paths. Parameters are percent-decoded (a malformed escape is no match).
 */
export function routeMatcher(routes: Route[]): (method: Method, path: string) => MatchedRoute | undefined {
  const compiled: Compiled[] = routes.map((route) => ({ route, segments: segmentsOf(route.path) }));
  return (method, path) => {
    const segments = segmentsOf(path);
    for (const candidate of compiled) {
      if (candidate.route.method !== method) continue;
      const params = paramsOf(candidate.segments, segments);
      if (!params) continue;
      try {
        return { route: candidate.route, params: Object.fromEntries(Object.entries(params).map(([name, value]) => [name, decodeURIComponent(value)])) };
      } catch {
        return undefined;
      }
    }
    return undefined;
  };
}

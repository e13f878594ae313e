// The one matching model shared by every rule kind, in the core (validation,
// the test endpoints) and in the edge (every request). No I/O here.

export type PatternKind = 'exact' | 'prefix' | 'wildcard' | 'regex';

/** A string condition: exact value, prefix, `*` wildcard, or a regular expression. */
export type Pattern = { kind: PatternKind; value: string; case_sensitive?: boolean };

/** A condition on a named query parameter, header or cookie: present/absent, or its value matches a pattern. */
export type NamedCondition = { name: string; present?: boolean; pattern?: Pattern; negate?: boolean };

/**
 * Every listed condition must hold (AND); inside `hosts` and `paths` any pattern
 * may match (OR). An empty match matches every request.
 */
export type Match = {
  hosts?: Pattern[];
  paths?: Pattern[];
  methods?: string[];
  query?: NamedCondition[];
  headers?: NamedCondition[];
  cookies?: NamedCondition[];
  countries?: string[];
  not_countries?: string[];
  ips?: string[];
  not_ips?: string[];
};

/** What the evaluator knows about a request. Header names are lower case; a query parameter has every value it was sent with. */
export type RequestFacts = {
  host: string;
  path: string;
  method: string;
  query: Record<string, readonly string[]>;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  country?: string;
  ip?: string;
};

/** The result of a successful match: regex captures of the path (then host) pattern, for substitution. */
export type MatchCaptures = readonly string[];

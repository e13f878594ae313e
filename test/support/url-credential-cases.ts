/** Addresses and texts with what may be shown of them: the rule in TypeScript and the migration's SQL must agree on each. */
export const URL_CREDENTIAL_CASES: [string, string][] = [
  ['https://x-access-token:ghs_secret@github.com/acme/cdn.git', 'https://github.com/acme/cdn.git'],
  ['https://ghp_tokenonly@github.com/acme/cdn.git', 'https://github.com/acme/cdn.git'],
  ['http://user:p%40ss:word@127.0.0.1:8080/repo.git', 'http://127.0.0.1:8080/repo.git'],
  ['HTTPS://oauth2:glpat@GitLab.example/group/repo', 'HTTPS://GitLab.example/group/repo'],
  ['ssh://git:hunter2@host.example:22/repo.git', 'ssh://git@host.example:22/repo.git'],
  ['git+ssh://git@host.example/repo.git', 'git+ssh://git@host.example/repo.git'],
  ['git@github.com:acme/cdn.git', 'git@github.com:acme/cdn.git'],
  ['file:///srv/git/cdn.git', 'file:///srv/git/cdn.git'],
  ['/srv/git/cdn', '/srv/git/cdn'],
  ['https://github.com/acme/cdn.git?ref=a@b', 'https://github.com/acme/cdn.git?ref=a@b'],
  ["fatal: unable to access 'https://x:tok@host.example/r.git/': 401; retried https://y:tok2@other.example/", "fatal: unable to access 'https://host.example/r.git/': 401; retried https://other.example/"],
];

// Commit pages of the web hosts whose address scheme is known, by host: the repository path and the commit id make the page.
const COMMIT_PAGES: Record<string, { segments: (count: number) => boolean; page: (path: string, sha: string) => string }> = {
  'github.com': { segments: (count) => count === 2, page: (path, sha) => `https://github.com/${path}/commit/${sha}` },
  'gitlab.com': { segments: (count) => count >= 2, page: (path, sha) => `https://gitlab.com/${path}/-/commit/${sha}` },
  'bitbucket.org': { segments: (count) => count === 2, page: (path, sha) => `https://bitbucket.org/${path}/commits/${sha}` },
  'codeberg.org': { segments: (count) => count === 2, page: (path, sha) => `https://codeberg.org/${path}/commit/${sha}` },
};

const SHA = /^[0-9a-f]{7,64}$/i;
// `git@github.com:acme/cdn.git`, the scp-like form ssh clones use.
const SCP_LIKE = /^[\w.-]+@([\w.-]+):(?!\/)(.+)$/;

// The host and repository path of a clone address (https, ssh, git or scp-like), user information left out.
function hostAndPath(repo: string): { host: string; path: string } | undefined {
  const scp = SCP_LIKE.exec(repo);
  if (scp) return { host: scp[1].toLowerCase(), path: scp[2] };
  try {
    const url = new URL(repo);
    if (!/^(https?|ssh|git|git\+ssh):$/.test(url.protocol)) return undefined;
    return { host: url.hostname.toLowerCase(), path: decodeURIComponent(url.pathname) };
  } catch {
    return undefined;
  }
}

/** The web page of `sha` in `repo` when the repository lives on a known web host (GitHub, GitLab, Bitbucket, Codeberg), else undefined. */
export function commitUrl(repo: string, sha: string): string | undefined {
  if (!SHA.test(sha)) return undefined;
  const found = hostAndPath(repo);
  const host = found && COMMIT_PAGES[found.host.replace(/^www\./, '')];
  if (!found || !host) return undefined;
  const segments = found.path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '').split('/').filter(Boolean);
  if (!host.segments(segments.length) || segments.some((segment) => !/^[\w.-]+$/.test(segment))) return undefined;
  return host.page(segments.join('/'), sha.toLowerCase());
}

/** A commit by its short id: a link to its page when the host is known, else the id itself (the full id in its title). */
export function Commit({ repo, sha }: { repo: string; sha: string | null | undefined }) {
  if (!sha) return <span class="muted">—</span>;
  const url = commitUrl(repo, sha);
  const short = <code>{sha.slice(0, 8)}</code>;
  return url ? (
    <a href={url} rel="noopener noreferrer" title={`commit ${sha}`}>
      {short}
    </a>
  ) : (
    <span title={`commit ${sha}`}>{short}</span>
  );
}

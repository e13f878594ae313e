import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import type { GitopsSource } from '../http/gitops-source.js';
import { withoutUrlCredentials } from '../shared/url-credentials.js';
import { gitRemote, repositoryAccess, type GitCredentials, type RepositoryAccess } from './git-access.js';

/** A checked-out desired state: where its files are and the commit they come from (null when not a git checkout). */
export type Snapshot = { dir: string; sha: string | null };

/** Where the controller reads the desired state from. */
export interface DesiredSource {
  readonly label: string;
  readonly branch: string | null;
  /** A directory to watch for changes (a local working copy), if any. */
  readonly watchDir?: string;
  fetch(): Promise<Snapshot>;
  /** Runs `work` on the desired-state directory as of an older commit, when the source has history. */
  atCommit?<T>(sha: string, work: (dir: string) => Promise<T>): Promise<T | undefined>;
}

/** The commit checked out at `dir`, or null when it is not in a git repository. */
export async function headOf(dir: string): Promise<string | null> {
  try {
    return (await simpleGit(dir).revparse(['HEAD'])).trim();
  } catch {
    return null;
  }
}

/**
 * The repository and commit a checkout at `dir` comes from, as `cdn apply` declares them to the
 * audit log: the `origin` remote without credentials (else the checkout's own folder) and HEAD;
 * none outside git.
 */
export async function checkoutOrigin(dir: string): Promise<GitopsSource | undefined> {
  const commit = await headOf(dir);
  if (!commit) return undefined;
  const git = simpleGit(dir);
  const remote = (await git.remote(['get-url', 'origin']).catch(() => undefined))?.trim();
  return { repo: remote ? withoutUrlCredentials(remote) : (await git.revparse(['--show-toplevel'])).trim(), commit };
}

/** A local directory read as it is (uncommitted edits included), watched for changes. */
export class WorkingCopySource implements DesiredSource {
  readonly branch = null;
  readonly watchDir: string;

  constructor(
    private readonly root: string,
    subdir: string,
  ) {
    this.watchDir = path.resolve(root, subdir);
  }

  get label(): string {
    return path.resolve(this.root);
  }

  async fetch(): Promise<Snapshot> {
    return { dir: this.watchDir, sha: await headOf(this.root) };
  }
}

/**
 * A repository cloned into the data directory and fast-forwarded to the branch on every fetch.
 * It is named, keyed and cloned without the credentials its URL may carry; git gets them through
 * its environment only (git-access.ts).
 */
export class CloneSource implements DesiredSource {
  private readonly checkout: string;
  private readonly access: RepositoryAccess;

  constructor(
    url: string,
    readonly branch: string,
    private readonly subdir: string,
    dataDir: string,
    credentials: GitCredentials = {},
  ) {
    this.access = repositoryAccess(url, credentials);
    this.checkout = path.resolve(dataDir, 'gitops', createHash('sha256').update(`${this.access.name}#${branch}`).digest('hex').slice(0, 16));
  }

  get label(): string {
    return this.access.name;
  }

  async fetch(): Promise<Snapshot> {
    if (!existsSync(path.join(this.checkout, '.git'))) {
      await mkdir(path.dirname(this.checkout), { recursive: true });
      await gitRemote(this.access, ['clone', '--branch', this.branch, '--single-branch', '--', this.access.name, this.checkout]);
    } else {
      await gitRemote(this.access, ['fetch', 'origin', this.branch], this.checkout);
      const git = simpleGit(this.checkout);
      await git.reset(['--hard', `origin/${this.branch}`]);
      await git.clean('f', ['-d']);
    }
    return { dir: path.join(this.checkout, this.subdir), sha: await headOf(this.checkout) };
  }

  /** Whether the repository answers and holds the branch: `git ls-remote`, nothing cloned; throws when it does not answer. */
  async hasBranch(timeoutMs: number): Promise<boolean> {
    const heads = await gitRemote(this.access, ['ls-remote', '--heads', '--', this.access.name, `refs/heads/${this.branch}`], undefined, timeoutMs);
    return heads.trim() !== '';
  }

  async atCommit<T>(sha: string, work: (dir: string) => Promise<T>): Promise<T | undefined> {
    const git = simpleGit(this.checkout);
    const worktree = `${this.checkout}-at-${sha.slice(0, 12)}`;
    try {
      await git.raw(['worktree', 'add', '--detach', '--force', worktree, sha]);
    } catch {
      return undefined;
    }
    try {
      return await work(path.join(worktree, this.subdir));
    } finally {
      await git.raw(['worktree', 'remove', '--force', worktree]).catch(() => undefined);
    }
  }
}

/**
 * The source for `--repo`: an existing non-bare directory is a working copy read
 * in place; anything else (a URL, file://, a bare repository) is cloned.
 */
export function sourceFor(repo: string, branch: string, subdir: string, dataDir: string, credentials?: GitCredentials): DesiredSource {
  const local = !/^[a-z][a-z0-9+.-]*:\/\//i.test(repo) && !/^[\w.-]+@[\w.-]+:/.test(repo) && existsSync(repo) && statSync(repo).isDirectory();
  const bare = local && existsSync(path.join(repo, 'HEAD')) && !existsSync(path.join(repo, '.git'));
  return local && !bare ? new WorkingCopySource(repo, subdir) : new CloneSource(repo, branch, subdir, dataDir, credentials);
}

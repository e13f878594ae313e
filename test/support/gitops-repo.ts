import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';

/**
 * A real git repository of desired state in a temp folder: a working clone whose commits are
 * pushed to a bare "remote" (`url`, a file:// URL) that a controller clones.
 */
export class GitopsRepo {
  readonly shas: string[] = [];

  private constructor(
    readonly dir: string,
    private readonly work: SimpleGit,
  ) {}

  /** A repository whose first commit holds `files` (paths relative to the repository root). */
  static async create(files: Record<string, string>): Promise<GitopsRepo> {
    const dir = await mkdtemp(path.join(tmpdir(), 'cdn-gitops-repo-'));
    await simpleGit().init(true, [path.join(dir, 'remote.git'), '--initial-branch=main']);
    await mkdir(path.join(dir, 'work'));
    const work = simpleGit(path.join(dir, 'work'));
    await work.init(['--initial-branch=main']);
    await work.addConfig('user.email', 'ops@example.net').addConfig('user.name', 'Ops');
    await work.addRemote('origin', path.join(dir, 'remote.git'));
    const repo = new GitopsRepo(dir, work);
    await repo.commit('initial desired state', files);
    return repo;
  }

  /** The remote as a controller is told it (CDN_GITOPS_REPO). */
  get url(): string {
    return `file://${path.join(this.dir, 'remote.git')}`;
  }

  /** Writes `files`, commits and pushes them; returns the commit id. */
  async commit(message: string, files: Record<string, string>): Promise<string> {
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(this.dir, 'work', file)), { recursive: true });
      await writeFile(path.join(this.dir, 'work', file), text);
    }
    await this.work.add('.');
    await this.work.commit(message);
    await this.work.push('origin', 'main');
    const sha = (await this.work.revparse(['HEAD'])).trim();
    this.shas.push(sha);
    return sha;
  }

  async read(file: string): Promise<string> {
    return readFile(path.join(this.dir, 'work', file), 'utf8');
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

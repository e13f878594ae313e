import { expect } from 'chai';
import { commitUrl } from '../../src/dashboard/commit-link.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';

describe('dashboard: commit links', () => {
  it('links a commit of a repository on GitHub, GitLab, Bitbucket or Codeberg, whatever the clone address', () => {
    expect(commitUrl('https://github.com/acme/cdn-config.git', SHA)).to.equal(`https://github.com/acme/cdn-config/commit/${SHA}`);
    expect(commitUrl('git@github.com:acme/cdn-config.git', SHA)).to.equal(`https://github.com/acme/cdn-config/commit/${SHA}`);
    expect(commitUrl('ssh://git@github.com/acme/cdn-config', SHA)).to.equal(`https://github.com/acme/cdn-config/commit/${SHA}`);
    expect(commitUrl('https://gitlab.com/acme/platform/cdn-config.git', SHA)).to.equal(`https://gitlab.com/acme/platform/cdn-config/-/commit/${SHA}`);
    expect(commitUrl('https://bitbucket.org/acme/cdn-config.git', SHA)).to.equal(`https://bitbucket.org/acme/cdn-config/commits/${SHA}`);
    expect(commitUrl('https://codeberg.org/acme/cdn-config', SHA)).to.equal(`https://codeberg.org/acme/cdn-config/commit/${SHA}`);
  });

  it('leaves user information out of the link', () => {
    expect(commitUrl('https://x-access-token:ghs_secret@github.com/acme/cdn-config.git', SHA)).to.equal(`https://github.com/acme/cdn-config/commit/${SHA}`);
  });

  it('gives no link for other hosts, local paths, odd paths or what is not a commit id', () => {
    expect(commitUrl('https://git.example/acme/cdn-config.git', SHA)).to.equal(undefined);
    expect(commitUrl('file:///srv/git/cdn.git', SHA)).to.equal(undefined);
    expect(commitUrl('/srv/git/cdn', SHA)).to.equal(undefined);
    expect(commitUrl('https://github.com/acme', SHA)).to.equal(undefined);
    expect(commitUrl('https://github.com/acme/cdn/extra', SHA)).to.equal(undefined);
    expect(commitUrl('https://github.com/acme/cdn%22onclick', SHA)).to.equal(undefined);
    expect(commitUrl('https://github.com/acme/cdn', 'main')).to.equal(undefined);
  });
});

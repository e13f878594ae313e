import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ApiClient } from '../../src/gitops/api-client.js';
import { buildPlan } from '../../src/gitops/engine.js';
import { exportFilters } from '../../src/gitops/live.js';
import { loadDesiredState } from '../../src/gitops/load.js';
import { TestCore } from '../support/core.js';
import { insertOnboardDomains, onboardDomain } from '../support/onboard-domains.js';

const DOMAINS = 300;

/** An API client that counts the export requests it sends and the domains they answer with. */
class CountingClient extends ApiClient {
  exportRequests = 0;
  domainsRead = 0;

  override async request<T = any>(method: string, requestPath: string, body?: unknown): Promise<T> {
    const answer = await super.request<T>(method, requestPath, body);
    if (requestPath.startsWith('/api/v1/export/domains')) {
      this.exportRequests += 1;
      this.domainsRead += (answer as { data: unknown[] }).data.length;
    }
    return answer;
  }
}

// A GitOps run reads the live state of the domains its repository names, not the whole export.
describe('GitOps live state: only the domains the repository names are read', function () {
  this.timeout(60_000);
  let core: TestCore;
  let repo: string;

  const writeRepository = async (files: Record<string, string>) => {
    await rm(path.join(repo, 'domains'), { recursive: true, force: true });
    await mkdir(path.join(repo, 'domains'), { recursive: true });
    for (const [file, text] of Object.entries(files)) await writeFile(path.join(repo, file), text);
  };
  const planWith = async (files: Record<string, string>) => {
    await writeRepository(files);
    const client = new CountingClient(core.url);
    const planned = await buildPlan(client, await loadDesiredState(repo));
    return { client, planned };
  };

  before(async () => {
    core = await TestCore.start();
    await insertOnboardDomains(core.core.connection.pool, DOMAINS);
    repo = await mkdtemp(path.join(tmpdir(), 'cdn-live-read-'));
  });
  after(async () => {
    await core?.stop();
    await rm(repo, { recursive: true, force: true });
  });

  it(`reads one domain when the repository has one file among ${DOMAINS} live domains`, async () => {
    const { client, planned } = await planWith({ 'cdn-gitops.yaml': 'max_delete_percent: 100\n', [`domains/${onboardDomain(7)}.yaml`]: `domain: ${onboardDomain(7)}\n` });
    expect(client.domainsRead).to.equal(1);
    expect(client.exportRequests).to.equal(1);
    expect([...planned.live.keys()]).to.deep.equal([onboardDomain(7)]);
    expect(planned.live.get(onboardDomain(7))!.records.size).to.equal(8);
  });

  it('sends no export request when the repository names no domain', async () => {
    const { client, planned } = await planWith({ 'cdn-gitops.yaml': 'max_delete_percent: 100\n' });
    expect(client.exportRequests).to.equal(0);
    expect(planned.live.size).to.equal(0);
  });

  it('still reads an owned domain whose file is gone, and plans it as orphaned', async () => {
    const { client, planned } = await planWith({ 'cdn-gitops.yaml': `owned_domains: [${onboardDomain(9)}]\n` });
    expect(client.domainsRead).to.equal(1);
    expect(planned.plan.domains.map((domain) => `${domain.domain} ${domain.action}`)).to.deep.equal([`${onboardDomain(9)} orphaned`]);
  });

  it('cuts many apexes into export filters of at most 100 names', () => {
    const apexes = Array.from({ length: 250 }, (_, index) => onboardDomain(index + 1));
    const filters = exportFilters(apexes);
    expect(filters.map((filter) => filter.split(',').length)).to.deep.equal([100, 100, 50]);
    expect(filters.flatMap((filter) => filter.split(',')).sort()).to.deep.equal([...apexes].sort());
  });
});

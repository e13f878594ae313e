import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { signedHeaders } from '../../src/shared/signing.js';
import { applyDelta, snapshotChunks, snapshotParts } from '../../src/shared/snapshot-delta.js';
import { TestCore } from '../support/core.js';

const EDGE_TOKEN = 'cdnedge_config-delta-token-0123456789';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const SNAPSHOT_KEY = '"snapshot":';
const DELTA_KEY = '"delta":';
const valueAfter = (body: Buffer, key: string) => body.subarray(body.indexOf(key) + key.length, body.length - 2);

// The signed config pull with `since` (docs/edge-protocol.md, "Config delta").
describe('the config pull answers a delta since the version an edge holds', () => {
  let core: TestCore;
  const versions = new Map<number, Buffer>();
  const pull = async (query: string) => {
    const path = `/api/v1/edge/config${query}`;
    const response = await fetch(`${core.url}${path}`, { headers: signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-delta', method: 'GET', pathWithQuery: path }) });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
  };
  const publish = async () => {
    const version = (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version as number;
    versions.set(version, valueAfter((await pull('')).body, SNAPSHOT_KEY));
    return version;
  };
  const ids: string[] = [];
  const addDomains = async (count: number, prefix: string) => {
    for (let n = 0; n < count; n++) {
      const domain = await core.createDomain(`${prefix}-${n}.example`);
      ids.push(domain.id);
      await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
      await core.post(`/api/v1/domains/${domain.id}/origins`, { host: `origin.${prefix}-${n}.example` }, 201);
    }
  };

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN, CDN_CONFIG_SNAPSHOT_KEEP_LAST: '2' });
    await addDomains(12, 'delta');
  });
  after(async () => {
    await core.stop();
  });

  it('answers the changed domain only, and V plus the delta has the new checksum', async () => {
    const from = await publish();
    await core.post(`/api/v1/domains/${ids[3]}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.3', proxied: true }, 201);
    const to = await publish();
    const answer = await pull(`?since=${from}`);
    expect(answer.status).to.equal(200);
    const data = JSON.parse(answer.body.toString()).data;
    expect(data).to.include({ version: to, checksum: sha256(versions.get(to)!) });
    expect(data.delta).to.include({ since: from, since_checksum: sha256(versions.get(from)!) });
    expect(data.delta.domains.filter((step: unknown) => typeof step === 'object').map((entry: { domain: string }) => entry.domain)).to.deep.equal(['delta-3.example']);
    expect(answer.body.length).to.be.below(versions.get(to)!.length / 3);
    expect(sha256(Buffer.concat(snapshotChunks(applyDelta(snapshotParts(versions.get(from)!, false), valueAfter(answer.body, DELTA_KEY)).parts)))).to.equal(data.checksum);
  });

  it('answers not_modified to an edge on the active version, and 422 to a since that is not a version', async () => {
    const active = await publish();
    expect(JSON.parse((await pull(`?since=${active}`)).body.toString()).data).to.include({ version: active, not_modified: true });
    const bad = await pull('?since=abc');
    expect(bad.status).to.equal(422);
    expect(JSON.parse(bad.body.toString())).to.include({ field: 'since' });
  });

  it('answers the full snapshot to a version it no longer keeps, or never had', async () => {
    const old = await publish();
    for (let n = 0; n < 3; n++) {
      await addDomains(1, `later-${n}`);
      await publish();
    }
    for (const since of [old, 999999]) {
      const data = JSON.parse((await pull(`?since=${since}`)).body.toString()).data;
      expect(data.snapshot, `since=${since}`).to.be.an('object');
      expect(data.delta).to.equal(undefined);
    }
  });

  it('answers the full snapshot when the delta would not be smaller', async () => {
    const from = await publish();
    await core.patch('/api/v1/settings/edge', { stale_config_warning_seconds: 777 });
    for (const id of ids) await core.patch(`/api/v1/domains/${id}`, { origin_shield_header_name: 'X-Everywhere' });
    await publish();
    const data = JSON.parse((await pull(`?since=${from}`)).body.toString()).data;
    expect(data.snapshot).to.be.an('object');
  });
});

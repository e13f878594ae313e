import { request } from 'node:http';
import { expect } from 'chai';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore } from '../support/core.js';
import { dropTestDatabase } from '../support/database.js';

const EDGE_TOKEN = 'cdnedge_config-long-poll-token-0123456789';
type Answer = { status: number; ms: number; json: any };

// The long-poll of the edge config pull (`wait=SECONDS`), against a real core and Postgres.
describe('the config pull held for a newer version (wait=SECONDS)', () => {
  let core: TestCore;
  let domainId: string;
  let records = 0;

  const publish = async (): Promise<number> => {
    records++;
    await core.post(`/api/v1/domains/${domainId}/origins`, { host: `origin${records}.long-poll.example`, role: 'backup' }, 201);
    return (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
  };

  const pull = (query: string) =>
    new Promise<Answer>((resolve, reject) => {
      const started = Date.now();
      const path = `/api/v1/edge/config?${query}`;
      const sent = request(`${core.url}${path}`, { method: 'GET', headers: signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-long-poll', method: 'GET', pathWithQuery: path }) }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, ms: Date.now() - started, json: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      sent.on('error', reject);
      sent.end();
    });

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    const domain = await core.createDomain('long-poll.example');
    domainId = domain.id;
    await core.post(`/api/v1/domains/${domainId}/activate`, { override: true });
    await core.post(`/api/v1/domains/${domainId}/origins`, { host: 'origin.long-poll.example' }, 201);
  });
  after(async () => {
    await core.stop();
  });

  it('answers the new snapshot within 100 ms of its store to a pull held on the active version', async () => {
    const version = await publish();
    const held = pull(`if_version=${version}&wait=20`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const storing = Date.now();
    const next = await publish();
    const stored = Date.now();
    const answer = await held;
    const answeredAt = Date.now();
    expect(answer.status).to.equal(200);
    expect(answer.json.data).to.include({ version: next });
    expect(answer.json.data.snapshot).to.be.an('object');
    // The store commits before the rebuild call returns; the held pull is answered at its commit.
    expect(answeredAt - storing, `answered ${answeredAt - stored} ms after the rebuild call returned`).to.be.below(stored - storing + 100);
  });

  it('releases a held pull with not_modified when the wait ends without a new version', async () => {
    const version = await publish();
    const answer = await pull(`if_version=${version}&wait=1`);
    expect(answer.status).to.equal(200);
    expect(answer.json).to.deep.equal({ data: { version, checksum: answer.json.data.checksum, not_modified: true } });
    expect(answer.ms).to.be.within(950, 1900);
  });

  it('answers at once when the edge is on another version, whatever the wait', async () => {
    const version = await publish();
    const answer = await pull(`if_version=${version - 1}&wait=30`);
    expect(answer.json.data.version).to.equal(version);
    expect(answer.json.data.snapshot).to.be.an('object');
    expect(answer.ms).to.be.below(1000);
  });

  for (const wait of ['61', '-1', '1.5', 'soon', '']) {
    it(`refuses wait=${wait} with 422 naming wait`, async () => {
      const answer = await pull(`wait=${wait}`);
      expect(answer.status).to.equal(422);
      expect(answer.json).to.include({ field: 'wait' });
    });
  }
});

describe('a held config pull when the core stops', () => {
  it('is answered 503 at once with the connection closed, so the stop does not wait for it', async () => {
    const core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    let stopped = false;
    try {
      const path = '/api/v1/edge/config?wait=30';
      const answer = new Promise<{ status: number; connection: string | undefined; json: any }>((resolve, reject) => {
        const sent = request(`${core.url}${path}`, { headers: signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-long-poll', method: 'GET', pathWithQuery: path }) }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, json: JSON.parse(Buffer.concat(chunks).toString()) }));
        });
        sent.on('error', reject);
        sent.end();
      });
      // Nothing is published: the pull of an edge without a version is held until the first version.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stopping = Date.now();
      await core.core.stop();
      stopped = true;
      expect(Date.now() - stopping).to.be.below(2000);
      expect(await answer).to.deep.equal({ status: 503, connection: 'close', json: { error: 'core is stopping', detail: 'ask again' } });
    } finally {
      if (!stopped) await core.core.stop();
      await dropTestDatabase(core.databaseUrl);
    }
  });
});

import { expect } from 'chai';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { startCore, type RunningCore } from '../../../src/core/start.js';
import { signedHeaders } from '../../../src/shared/signing.js';
import { OwnCluster } from '../../support/cluster.js';
import { eventually } from '../../support/eventually.js';

const TOKEN = 'cdnedge_replay-memory-token-0123456789';
const PULL = '/api/v1/edge/config';

async function query(url: string, text: string): Promise<any[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

// Kills one server process with SIGKILL: PostgreSQL then restarts every backend
// and runs crash recovery, which empties unlogged tables, as a real crash does.
async function crashServer(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
  process.kill(pid, 'SIGKILL');
  await client.end().catch(() => undefined);
}

// The nonces of signed edge requests live in unlogged tables (no fsync per request).
// A crash empties them; the core must not accept a replay of a request it accepted before.
describe('edge replay memory across a database crash', function () {
  this.timeout(90000);
  let postgres: OwnCluster;
  let core: RunningCore;

  before(async () => {
    postgres = await OwnCluster.create();
    const config = loadConfig({ DATABASE_URL: postgres.url, CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'silent', CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_PUBLISH_ENABLED: 'false' });
    core = await startCore(config, pino({ level: 'silent' }));
  });
  after(async () => {
    await core?.stop();
    await postgres?.remove();
  });

  const pull = (headers: Record<string, string>) => fetch(`${core.url}${PULL}`, { headers });
  // Until the core's pool has dropped the connections the server cut, a pull may answer 503.
  const pullOnceReachable = (headers: Record<string, string>) =>
    eventually('the core to reach the database again', async () => {
      const answer = await pull(headers);
      const body = await answer.json();
      return answer.status === 503 ? undefined : { status: answer.status, body };
    });
  const sign = (now?: number) => signedHeaders({ token: TOKEN, edgeId: 'edge-1', method: 'GET', pathWithQuery: PULL, now });

  it('refuses a replay of a request accepted before the crash, and accepts requests signed after it', async () => {
    const captured = sign();
    expect((await pull(captured)).status).to.equal(200);
    expect((await pull(captured)).status, 'a replay before the crash').to.equal(401);

    await crashServer(postgres.url);
    await eventually('crash recovery to empty the unlogged tables', async () => {
      const counts = await query(postgres.url, 'SELECT (SELECT count(*)::int FROM edge_nonces) AS nonces, (SELECT count(*)::int FROM edge_nonce_memory) AS memory').catch(() => undefined);
      return counts?.[0].nonces === 0 && counts[0].memory === 0 ? true : undefined;
    });

    const replay = await pullOnceReachable(captured);
    expect(replay.status).to.equal(401);
    expect(replay.body.detail).to.match(/signed before the replay memory restarted at .* crash or failover/);
    const [memory] = await query(postgres.url, 'SELECT complete_since FROM edge_nonce_memory');
    expect(memory.complete_since.getTime()).to.be.greaterThan(Number(captured['x-cdn-timestamp']) * 1000);

    const fresh = sign(Math.ceil(memory.complete_since.getTime() / 1000));
    expect((await pull(fresh)).status).to.equal(200);
    expect((await pull(fresh)).status, 'a replay after the restart').to.equal(401);
  });

  it('keeps the nonces across a clean restart', async () => {
    const signed = sign(Math.floor(Date.now() / 1000) + 2);
    expect((await pull(signed)).status).to.equal(200);
    await postgres.stop();
    await postgres.start();
    const replay = await pullOnceReachable(signed);
    expect(replay.status).to.equal(401);
    expect(replay.body.detail).to.match(/nonce already used/);
  });
});

import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { markConfigDirtyOn } from '../../src/publish/dirty.js';
import { publishStateRow } from '../../src/publish/publish-state-row.js';
import { publishOnce } from '../../src/publish/publisher.js';
import { TestCore } from '../support/core.js';
import { eventually } from '../support/eventually.js';

// The publish_state row is written first by a change marking the config dirty or by a publish,
// whichever comes first, on different connections. CI once saw the publisher's first read-then-insert
// fail on the primary key while a change inserted the row.
describe('the publish_state row, first written by two connections at once', function () {
  this.timeout(60000);
  let core: TestCore;
  const defaults = { cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false }, ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 } };
  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core.stop();
  });

  // Runs `publishing` while another connection holds an uncommitted first insert of the row, then commits it.
  async function againstUncommittedChange<T>(publishing: () => Promise<T>): Promise<T> {
    const pool = core.core.connection.pool;
    await pool.query('DELETE FROM publish_state');
    const change = await pool.connect();
    try {
      await change.query('BEGIN');
      await markConfigDirtyOn(change, 'a change committing while the publisher starts');
      const outcome = publishing().then((value) => ({ value }), (error: Error) => ({ error }));
      await eventually('the publish waiting on the uncommitted row', async () => {
        const { rows } = await pool.query("SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE 'INSERT INTO %publish_state%'");
        return rows[0].waiting > 0 ? true : undefined;
      });
      await change.query('COMMIT');
      const settled = await outcome;
      if ('error' in settled) throw settled.error;
      return settled.value;
    } finally {
      change.release();
    }
  }

  it('publishes, reading the row the change committed', async () => {
    const config = loadConfig({ DATABASE_URL: core.databaseUrl });
    const result = await againstUncommittedChange(() => publishOnce(core.db, core.core.connection.pool, config, defaults));
    expect(result.outcome).to.equal('published');
    const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    expect({ change_seq: state.change_seq, published_seq: state.published_seq, active_version: state.active_version }).to.deep.equal({ change_seq: 1n, published_seq: 1n, active_version: result.version });
  });

  it('reads a row that is there without waiting for a change still open on it', async () => {
    const change = await core.core.connection.pool.connect();
    try {
      await change.query('BEGIN');
      await markConfigDirtyOn(change, 'a change not committed yet');
      const read = await Promise.race([publishStateRow(core.db), new Promise((resolve) => setTimeout(resolve, 2000, 'waited'))]);
      expect(read).to.not.equal('waited');
    } finally {
      await change.query('ROLLBACK');
      change.release();
    }
  });
});

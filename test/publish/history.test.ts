import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { publishOnce } from '../../src/publish/publisher.js';
import { TestCore, type Json } from '../support/core.js';

const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};

describe('snapshot history: payload, diff and rollback', () => {
  let core: TestCore;
  const publish = () => publishOnce(core.db, core.core.connection.pool, loadConfig({ DATABASE_URL: core.databaseUrl }), DEFAULTS);

  describe('with CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED', () => {
    before(async () => {
      core = await TestCore.start({ CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED: 'true', CDN_CONFIG_SNAPSHOT_KEEP_LAST: '10' });
    });
    after(async () => {
      await core.stop();
    });

    it('returns a stored payload, diffs two versions and rolls back to an old one', async () => {
      const shop = await core.createDomain('shop.history.example');
      await core.post(`/api/v1/domains/${shop.id}/activate`, { override: true });
      const first = (await publish()).version!;
      await core.post(`/api/v1/domains/${shop.id}/origins`, { host: 'origin.history.example' }, 201);
      const blog = await core.createDomain('blog.history.example');
      await core.post(`/api/v1/domains/${blog.id}/activate`, { override: true });
      const second = (await publish()).version!;

      const payload = (await core.get(`/api/v1/config/snapshots/${first}`)).data;
      expect(payload.snapshot.domains.map((item: Json) => item.domain)).to.deep.equal(['shop.history.example']);

      const diff = (await core.post('/api/v1/config/snapshots/diff', { from_version: first, to_version: second })).data;
      expect(diff).to.deep.include({ identical: false, domains_added: ['blog.history.example'], domains_removed: [] });
      expect(diff.domains_changed).to.deep.equal([{ domain: 'shop.history.example', sections: ['origins'] }]);

      const rollback = (await core.post(`/api/v1/config/snapshots/${first}/rollback`, undefined)).data;
      expect(rollback).to.deep.include({ outcome: 'published', version: second + 1, rolled_back_to: first, checksum: payload.checksum });
      const listed = (await core.get('/api/v1/config/snapshots')).data[0];
      expect(listed).to.include({ version: second + 1, source: 'rollback', active: true });
      expect((await core.get('/api/v1/audit?limit=1')).data[0]).to.include({ action: 'snapshot.rollback', target_id: String(first) });
    });

    it('creates no version edges must download again when a rebuild or a rollback has the active content', async () => {
      const active = async () => (await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).active_version!;
      // The previous test published `first` and `second` from the database, then rolled back to `first`.
      const rolledBack = await active();
      const second = rolledBack - 1;
      const rebuilt = (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data;
      expect(rebuilt, 'the database content differs from the rolled back one').to.deep.equal({ outcome: 'published', version: rolledBack + 1 });
      const stored = await core.db.configSnapshot.count();

      expect((await core.post('/api/v1/config/snapshots/rebuild', undefined)).data).to.deep.equal({ outcome: 'unchanged', version: rebuilt.version });
      expect((await core.post(`/api/v1/config/snapshots/${second}/rollback`, undefined)).data).to.deep.include({ outcome: 'unchanged', version: rebuilt.version, rolled_back_to: second });
      expect((await core.post(`/api/v1/config/snapshots/${rebuilt.version}/rollback`, undefined)).data).to.deep.include({ outcome: 'unchanged', version: rebuilt.version });
      expect(await active()).to.equal(rebuilt.version);
      expect(await core.db.configSnapshot.count()).to.equal(stored);
    });

    it('redacts the origin shield secret in a stored payload, while the diff still sees it change', async () => {
      const shielded = await core.createDomain('shield.history.example', { origin_shield_header_name: 'X-Shield', origin_shield_secret: 'first-secret-value' });
      await core.post(`/api/v1/domains/${shielded.id}/activate`, { override: true });
      const first = (await publish()).version!;
      await core.patch(`/api/v1/domains/${shielded.id}`, { origin_shield_secret: 'second-secret-value' });
      const second = (await publish()).version!;

      const response = await fetch(`${core.url}/api/v1/config/snapshots/${second}`);
      const text = await response.text();
      expect(text).not.to.include('secret-value');
      const domain = JSON.parse(text).data.snapshot.domains.find((item: Json) => item.domain === 'shield.history.example');
      expect(domain.origin_shield).to.deep.equal({ header_name: 'X-Shield', secret: '[redacted]' });

      const diff = (await core.post('/api/v1/config/snapshots/diff', { from_version: first, to_version: second })).data;
      expect(JSON.stringify(diff)).not.to.include('secret-value');
      expect(diff.domains_changed).to.deep.include({ domain: 'shield.history.example', sections: ['origin_shield'] });
    });

    it('answers 404 for an unknown version and 422 for bad input', async () => {
      await core.get('/api/v1/config/snapshots/999', 404);
      await core.post('/api/v1/config/snapshots/999/rollback', undefined, 404);
      expect((await core.get('/api/v1/config/snapshots/abc', 422)).field).to.equal('version');
      expect((await core.post('/api/v1/config/snapshots/diff', { from_version: 1 }, 422)).field).to.equal('to_version');
    });
  });

  describe('without it', () => {
    before(async () => {
      core = await TestCore.start();
    });
    after(async () => {
      await core.stop();
    });

    it('answers 404 naming the variable for payload, diff and rollback', async () => {
      await publish();
      for (const error of [
        await core.get('/api/v1/config/snapshots/1', 404),
        await core.post('/api/v1/config/snapshots/diff', { from_version: 1, to_version: 1 }, 404),
        await core.post('/api/v1/config/snapshots/1/rollback', undefined, 404),
      ]) {
        expect(error.error).to.equal('snapshot history is disabled');
        expect(error.detail).to.include('CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED');
      }
      expect((await core.get('/api/v1/config/snapshots')).data).to.have.length(1);
    });
  });
});

import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ConfigError, configProblems, edgeMetricsDomains, loadConfig } from '../../src/config/load.js';
import { VARIABLES } from '../../src/config/variables.js';

describe('configuration', () => {
  it('applies the spec defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).to.include({
      corePort: 8080,
      edgeHttpPort: 8081,
      edgeHttpsPort: 8443,
      bind: '127.0.0.1',
      dataDir: './.data',
      autoMigrate: true,
      adminSessionTtlSeconds: 43200,
      syncIntervalSeconds: 30,
      nameserverCheckIntervalSeconds: 86400,
      sslSchedulerIntervalSeconds: 30,
      edgeChallengeDifficulty: 3,
      configSnapshotKeepLast: 2,
      configSnapshotPruneBatchSize: 5000,
      configSnapshotHistoryEnabled: false,
      analyticsRetentionDays: 30,
      securityEventRetentionDays: 90,
      dnsEventRetentionDays: 30,
      sslJobRetentionDays: 180,
      ingestKeyRetentionDays: 7,
      retentionPruneEnabled: false,
      retentionIntervalSeconds: 86400,
      retentionBatchSize: 5000,
      edgeConfigMaxBytes: 1048576,
      edgeConfigRefreshSeconds: 1,
      storeFullClientIp: false,
    });
    expect(config.apiToken).to.equal(undefined);
    expect(config.databaseUrl).to.equal(undefined);
  });

  it('uses the production start values under CDN_ENV=production', () => {
    const config = loadConfig({ CDN_ENV: 'production' });
    expect(config).to.include({ edgeConfigMaxBytes: 33554432, edgeTelemetryBatchSize: 500, edgeTelemetryQueueMaxItems: 100000, edgeProxyConnectTimeoutSeconds: 5 });
  });

  it('rejects a non-integer with a one-line error naming the variable', () => {
    expect(() => loadConfig({ CDN_SYNC_INTERVAL_SECONDS: 'abc' }))
      .to.throw(ConfigError, /^CDN_SYNC_INTERVAL_SECONDS="abc" is not an integer$/);
  });

  it('rejects a value out of its bounds', () => {
    expect(() => loadConfig({ CDN_EDGE_CHALLENGE_DIFFICULTY: '7' })).to.throw(ConfigError, /CDN_EDGE_CHALLENGE_DIFFICULTY=7 is out of range \(1 to 6\)/);
    expect(() => loadConfig({ CDN_CORE_PORT: '70000' })).to.throw(ConfigError, /CDN_CORE_PORT/);
  });

  it('reads booleans as true/false/1/0/yes/no and rejects anything else', () => {
    expect(loadConfig({ CDN_AUTO_MIGRATE: '0' }).autoMigrate).to.equal(false);
    expect(loadConfig({ CDN_STORE_FULL_CLIENT_IP: 'yes' }).storeFullClientIp).to.equal(true);
    expect(() => loadConfig({ CDN_AUTO_MIGRATE: 'maybe' })).to.throw(ConfigError, /CDN_AUTO_MIGRATE/);
  });

  it('rejects an unknown enum value', () => {
    expect(() => loadConfig({ CDN_ENV: 'staging' })).to.throw(ConfigError, /CDN_ENV="staging" must be one of development, production/);
  });

  it('rejects a trusted proxy that is not an address, a CIDR or a named range', () => {
    expect(() => loadConfig({ CDN_API_TRUSTED_PROXIES: '10.0.0.0/8, proxy.example' })).to.throw(ConfigError, /CDN_API_TRUSTED_PROXIES: "proxy.example" is not an address/);
    expect(loadConfig({ CDN_API_TRUSTED_PROXIES: 'loopback, 10.0.0.0/8 2001:db8::1' }).apiTrustedProxies).to.equal('loopback, 10.0.0.0/8 2001:db8::1');
  });

  it('takes at most 50 domains to count apart in the edge\'s metrics', () => {
    const domains = (count: number) => Array.from({ length: count }, (_, i) => `d${i}.example`).join(',');
    expect(edgeMetricsDomains(loadConfig({ CDN_EDGE_METRICS_DOMAINS: ' A.example., b.example a.example' }))).to.deep.equal(['a.example', 'b.example']);
    expect(edgeMetricsDomains(loadConfig({ CDN_EDGE_METRICS_DOMAINS: domains(50) }))).to.have.length(50);
    expect(() => loadConfig({ CDN_EDGE_METRICS_DOMAINS: domains(51) })).to.throw(ConfigError, /CDN_EDGE_METRICS_DOMAINS names 51 domains; at most 50/);
  });

  it('requires a username and a password of 8+ characters when the bootstrap admin is enabled', () => {
    expect(() => loadConfig({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_PASSWORD: 'long-enough' })).to.throw(ConfigError, /CDN_BOOTSTRAP_ADMIN_USERNAME/);
    expect(() => loadConfig({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: 'admin', CDN_BOOTSTRAP_ADMIN_PASSWORD: 'short' })).to.throw(ConfigError, /CDN_BOOTSTRAP_ADMIN_PASSWORD/);
  });

  it('checks the PowerDNS settings once an API URL is given', () => {
    expect(loadConfig({}).powerdnsApiUrl).to.equal('');
    expect(() => loadConfig({ CDN_POWERDNS_API_URL: 'not a url', CDN_POWERDNS_API_KEY: 'k' })).to.throw(ConfigError, /^CDN_POWERDNS_API_URL="not a url" is not a URL$/);
    expect(() => loadConfig({ CDN_POWERDNS_API_URL: 'ftp://127.0.0.1', CDN_POWERDNS_API_KEY: 'k' })).to.throw(ConfigError, /must be an http or https URL/);
    expect(() => loadConfig({ CDN_POWERDNS_API_URL: 'http://127.0.0.1:8081' })).to.throw(ConfigError, /CDN_POWERDNS_API_KEY must be set/);
    expect(() => loadConfig({ CDN_POWERDNS_API_URL: 'http://admin:s3cret@127.0.0.1:8081', CDN_POWERDNS_API_KEY: 'k' })).to.throw(ConfigError, /must not carry a user or password/);
    expect(() => loadConfig({ CDN_POWERDNS_API_URL: 'http://127.0.0.1:8081', CDN_POWERDNS_API_KEY: 'k', CDN_POWERDNS_SERVER_ID: '../zones' })).to.throw(ConfigError, /CDN_POWERDNS_SERVER_ID/);
    expect(loadConfig({ CDN_POWERDNS_API_URL: 'http://127.0.0.1:8081', CDN_POWERDNS_API_KEY: 'k' })).to.include({ powerdnsServerId: 'localhost', powerdnsTimeoutMs: 5000, powerdnsMaxAttempts: 4 });
  });

  it('lists every badly set variable, where loading stops at the first', () => {
    expect(configProblems({ CDN_SYNC_INTERVAL_SECONDS: 'abc', CDN_AUTO_MIGRATE: 'maybe', CDN_CORE_PORT: '70000' })).to.deep.equal([
      'CDN_CORE_PORT=70000 is out of range (0 to 65535)',
      'CDN_AUTO_MIGRATE="maybe" is not a boolean (use true/false or 1/0)',
      'CDN_SYNC_INTERVAL_SECONDS="abc" is not an integer',
    ]);
  });

  it('lists the rule across variables that fails once each variable parses, and nothing for a configuration that loads', () => {
    expect(configProblems({ CDN_POWERDNS_API_URL: 'http://127.0.0.1:8081' })).to.deep.equal(['CDN_POWERDNS_API_KEY must be set when CDN_POWERDNS_API_URL is']);
    expect(configProblems({ CDN_ENV: 'staging' })).to.deep.equal(['CDN_ENV="staging" must be one of development, production']);
    expect(configProblems({ CDN_ENV: 'production' })).to.deep.equal([]);
  });

  it('documents every variable in docs/configuration.md', () => {
    const docs = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const missing = Object.values(VARIABLES).map((variable) => variable.env).filter((name) => !docs.includes(`\`${name}\``));
    expect(missing).to.deep.equal([]);
  });
});

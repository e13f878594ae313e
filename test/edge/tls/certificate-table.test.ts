import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { compileActiveConfig } from '../../../src/edge/config/active-config.js';
import { CertificateTable, meetsMinimum } from '../../../src/edge/tls/certificate-table.js';
import { SNAPSHOT_RULE_KINDS, type SnapshotDomain } from '../../../src/shared/snapshot.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';

type Certificate = SnapshotDomain['certificates'][number];

function domain(apex: string, certificates: Certificate[], ssl: Record<string, unknown> = {}): SnapshotDomain {
  return {
    id: randomUUID(),
    domain: apex,
    hostnames: [apex, `www.${apex}`],
    origin_shield: null,
    origins: [],
    cache: {},
    ssl,
    certificates,
    rules: Object.fromEntries(SNAPSHOT_RULE_KINDS.map((kind) => [kind, []])) as unknown as SnapshotDomain['rules'],
  };
}

function certificate(chain: TestChain, hostnames: string[]): Certificate {
  return { id: randomUUID(), hostnames, not_after: null, certificate_pem: chain.leaf, chain_pem: chain.intermediate };
}

const configOf = (...domains: SnapshotDomain[]) => compileActiveConfig({ schema_version: 2, edge: { challenge_difficulty: 3 }, domains, purges: [] }, 1, 'test');

describe('the certificate table of a worker', function () {
  this.timeout(30000);
  let broad: TestChain;
  let wildcard: TestChain;
  let other: TestChain;

  before(async () => {
    [broad, wildcard, other] = await Promise.all([makeTestChain(['a.test', 'www.a.test', 'b.test']), makeTestChain(['*.a.test']), makeTestChain(['b.test'])]);
  });

  it('answers a name with its own domain\'s certificate only, never another domain\'s, and lists certificates without a key', () => {
    const a = certificate(broad, ['a.test', 'www.a.test', 'b.test']);
    const b = certificate(other, ['b.test']);
    const table = new CertificateTable();
    table.update(configOf(domain('a.test', [a]), domain('b.test', [b])), { [a.id]: broad.leafKey });
    expect(table.lookup('www.a.test')).to.not.equal(undefined);
    expect(table.lookup('WWW.A.TEST')).to.equal(table.lookup('www.a.test'));
    expect(table.lookup('b.test'), 'b.test is another domain: a.test\'s certificate must not answer it').to.equal(undefined);
    expect(table.status()).to.deep.equal({ names: 2, certificates_without_key: [b.id], certificates_unusable: [] });
  });

  it('falls back to the wildcard one label up, and a newer certificate of the domain takes a name', () => {
    const a = certificate(broad, ['a.test', 'www.a.test']);
    const star = certificate(wildcard, ['*.a.test', 'www.a.test']);
    const table = new CertificateTable();
    table.update(configOf(domain('a.test', [a, star])), { [a.id]: broad.leafKey, [star.id]: wildcard.leafKey });
    const apex = table.lookup('a.test');
    expect(table.lookup('x.a.test')).to.not.equal(undefined);
    expect(table.lookup('x.a.test')!.context).to.equal(table.lookup('www.a.test')!.context);
    expect(table.lookup('x.a.test')!.context).to.not.equal(apex!.context);
    expect(table.lookup('y.x.a.test')).to.equal(undefined);
    expect(table.lookup('test')).to.equal(undefined);
  });

  it('applies the domain\'s min_tls_version (below 1.2 is the edge\'s floor, 1.2) and reuses unchanged contexts', () => {
    const a = certificate(broad, ['a.test']);
    const table = new CertificateTable();
    table.update(configOf(domain('a.test', [a], { min_tls_version: '1.3' })), { [a.id]: broad.leafKey });
    const strict = table.lookup('a.test')!;
    expect(strict.minVersion).to.equal('TLSv1.3');
    table.update(configOf(domain('a.test', [a], { min_tls_version: '1.0' })), { [a.id]: broad.leafKey });
    expect(table.lookup('a.test')!.minVersion).to.equal('TLSv1.2');
    expect(table.lookup('a.test')!.context, 'the same certificate and key: the same context').to.equal(strict.context);
    expect(meetsMinimum('TLSv1.2', 'TLSv1.3')).to.equal(false);
    expect(meetsMinimum('TLSv1.3', 'TLSv1.2')).to.equal(true);
    expect(meetsMinimum(null, 'TLSv1.2')).to.equal(false);
  });

  it('leaves out a certificate whose key does not load, saying so, and serves the others', () => {
    const a = certificate(broad, ['a.test']);
    const b = certificate(other, ['b.test']);
    const failures: string[] = [];
    const table = new CertificateTable((id) => failures.push(id));
    table.update(configOf(domain('a.test', [a]), domain('b.test', [b])), { [a.id]: broad.otherKey, [b.id]: other.leafKey });
    expect(table.lookup('a.test')).to.equal(undefined);
    expect(table.lookup('b.test')).to.not.equal(undefined);
    expect(failures).to.deep.equal([a.id]);
    expect(table.status()).to.deep.equal({ names: 1, certificates_without_key: [], certificates_unusable: [a.id] });
  });

  it('serves no certificate of a domain whose SSL mode is off', () => {
    const a = certificate(broad, ['a.test']);
    const table = new CertificateTable();
    table.update(configOf(domain('a.test', [a], { mode: 'off' })), { [a.id]: broad.leafKey });
    expect(table.lookup('a.test')).to.equal(undefined);
    expect(table.status().names).to.equal(0);
  });
});

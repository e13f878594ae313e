import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { createClientResolver } from '../../../src/edge/country/client-address.js';
import { CountryDatabase } from '../../../src/edge/country/country-database.js';
import { eventually } from '../../support/eventually.js';
import { writeMmdb } from '../../support/mmdb-writer.js';

const silent = pino({ level: 'silent' });

describe('edge client address and country header', () => {
  const resolver = createClientResolver({ trustedProxies: '10.0.0.0/8, loopback', countryHeaders: 'X-CDN-Country, CF-IPCountry' });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(resolver.clientIp({ 'x-forwarded-for': '198.51.100.1' }, '203.0.113.5')).to.equal('203.0.113.5');
  });

  it('takes the right-most address that is not a trusted proxy', () => {
    expect(resolver.clientIp({ 'x-forwarded-for': '198.51.100.1, 203.0.113.9, 10.1.2.3' }, '127.0.0.1')).to.equal('203.0.113.9');
  });

  it('walks the right end of a long X-Forwarded-For, so a client cannot push the real hops out', () => {
    const spoofed = Array.from({ length: 200 }, (_, index) => `192.0.2.${index % 250}`).join(', ');
    expect(resolver.clientIp({ 'x-forwarded-for': `${spoofed}, 203.0.113.9, 10.1.2.3` }, '127.0.0.1')).to.equal('203.0.113.9');
    expect(resolver.clientIp({ 'x-forwarded-for': `${spoofed},198.51.100.7` }, '10.0.0.1')).to.equal('198.51.100.7');
  });

  it('keeps the peer when a forwarded hop is not an address', () => {
    expect(resolver.clientIp({ 'x-forwarded-for': 'nonsense, 10.1.2.3' }, '10.0.0.1')).to.equal('10.0.0.1');
  });

  it('writes an IPv4-mapped IPv6 hop as IPv4', () => {
    expect(resolver.clientIp({ 'x-forwarded-for': '::ffff:198.51.100.4' }, '::1')).to.equal('198.51.100.4');
  });

  it('believes a country header only from a trusted proxy, the first listed header winning', () => {
    const headers = { 'x-cdn-country': 'de', 'cf-ipcountry': 'FR' };
    expect(resolver.headerCountry(headers, '10.9.9.9')).to.equal('DE');
    expect(resolver.headerCountry({ 'cf-ipcountry': 'FR' }, '10.9.9.9')).to.equal('FR');
    expect(resolver.headerCountry(headers, '198.51.100.1')).to.equal(undefined);
  });

  it('refuses a header value that is not a country code', () => {
    for (const value of ['XX', 'T1', 'Germany', 'D\u0000']) expect(resolver.headerCountry({ 'x-cdn-country': value }, '127.0.0.1'), value).to.equal(undefined);
  });
});

describe('edge country database', () => {
  let dir: string;
  let database: CountryDatabase | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-geoip-'));
  });
  afterEach(async () => {
    database?.close();
    database = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  async function file(name: string, entries: Parameters<typeof writeMmdb>[0]): Promise<string> {
    const target = path.join(dir, name);
    await writeFile(target, writeMmdb(entries));
    return target;
  }

  it('looks up IPv4 and IPv6 addresses in both record shapes', async () => {
    database = await CountryDatabase.open(await file('db.mmdb', { '203.0.113.0/24': { country_code: 'DE' }, '2001:db8:1::/48': { country: { iso_code: 'fr' } } }), silent);
    expect(database.lookup('203.0.113.77')).to.equal('DE');
    expect(database.lookup('2001:db8:1::9')).to.equal('FR');
    expect(database.lookup('198.51.100.1')).to.equal(undefined);
    expect(database.lookup('not an address')).to.equal(undefined);
  });

  it('swaps in a replaced file without a restart', async () => {
    const target = await file('db.mmdb', { '203.0.113.0/24': { country_code: 'DE' } });
    database = await CountryDatabase.open(target, silent);
    await rename(await file('next.mmdb', { '203.0.113.0/24': { country_code: 'NL' } }), target);
    await eventually('the new file to be used', async () => ((await database!.reloadIfChanged()) || database!.lookup('203.0.113.1') === 'NL' ? true : undefined));
    expect(database.lookup('203.0.113.1')).to.equal('NL');
  });

  it('keeps the database in use when the new file is not a MaxMind DB', async () => {
    const target = await file('db.mmdb', { '203.0.113.0/24': { country_code: 'DE' } });
    database = await CountryDatabase.open(target, silent);
    await writeFile(path.join(dir, 'broken'), 'not a database');
    await rename(path.join(dir, 'broken'), target);
    expect(await database.reloadIfChanged()).to.equal(false);
    expect(database.lookup('203.0.113.1')).to.equal('DE');
  });

  it('refuses to open a file that is not a MaxMind DB, naming it', async () => {
    await writeFile(path.join(dir, 'bad.mmdb'), 'nope');
    let message = '';
    await CountryDatabase.open(path.join(dir, 'bad.mmdb'), silent).catch((error: Error) => (message = error.message));
    expect(message).to.contain('bad.mmdb');
  });

  it('opens the CC0 database of the package by default', async () => {
    database = await CountryDatabase.open('', silent);
    expect(database.lookup('8.8.8.8')).to.equal('US');
  });
});

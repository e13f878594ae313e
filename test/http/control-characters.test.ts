import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ASCII_ONLY_PATTERN, CONTROL_CHARACTERS_DETAIL, NO_CONTROL_CHARACTERS_PATTERN, encodeForLocation, hasControlCharacter } from '../../src/shared/control-characters.js';
import { TestCore, type Json } from '../support/core.js';

// Every field whose value can become an HTTP header (name or value), a URL or a
// hostname, on every route that writes it: a CR, LF or NUL in it is refused with
// 422 naming the field, and nothing is stored (before, CR/LF in a header value or
// a redirect target went to the edge as a response header; a trailing CR/LF on
// an origin host was silently stripped).
// NUL is refused earlier on every route, with its own message (storable-input.ts and
// test/http/bad-input-sweep.test.ts); ESC stands for the other C0 characters here.
const CHARACTERS: [string, string][] = [
  ['CR', '\r'],
  ['LF', '\n'],
  ['ESC', '\u001b'],
];

type Ids = { domain: string; origin: string; record: string; redirect: string; header: string; page: string };
type Case = { route: string; field: string; send: (core: TestCore, ids: Ids, bad: (valid: string) => string) => Promise<Json> };

const domainPath = (ids: Ids) => `/api/v1/domains/${ids.domain}`;
const post = (path: (ids: Ids) => string, body: (bad: (valid: string) => string) => Json) => (core: TestCore, ids: Ids, bad: (valid: string) => string) => core.post(path(ids), body(bad), 422);
const patch = (path: (ids: Ids) => string, body: (bad: (valid: string) => string) => Json) => (core: TestCore, ids: Ids, bad: (valid: string) => string) => core.patch(path(ids), body(bad), 422);
const put = (path: (ids: Ids) => string, body: (bad: (valid: string) => string) => Json) => (core: TestCore, ids: Ids, bad: (valid: string) => string) => core.put(path(ids), body(bad), 422);

const CASES: Case[] = [
  { route: 'POST /domains', field: 'domain', send: post(() => '/api/v1/domains', (bad) => ({ domain: bad('other.example') })) },
  { route: 'POST /domains', field: 'zone_name', send: post(() => '/api/v1/domains', (bad) => ({ domain: 'other.example', zone_name: bad('other.example') })) },
  { route: 'POST /domains', field: 'origin_shield_secret', send: post(() => '/api/v1/domains', (bad) => ({ domain: 'other.example', origin_shield_header_name: 'X-Shield', origin_shield_secret: bad('shield-secret') })) },
  { route: 'PATCH /domains/{id}', field: 'domain', send: patch(domainPath, (bad) => ({ domain: bad('renamed.example') })) },
  { route: 'PATCH /domains/{id}', field: 'origin_shield_secret', send: patch(domainPath, (bad) => ({ origin_shield_header_name: 'X-Shield', origin_shield_secret: bad('shield-secret') })) },
  { route: 'POST origins', field: 'host', send: post((ids) => `${domainPath(ids)}/origins`, (bad) => ({ host: bad('o2.example.net') })) },
  { route: 'POST origins', field: 'host', send: post((ids) => `${domainPath(ids)}/origins`, (bad) => ({ host: bad('192.0.2.77') })) },
  { route: 'POST origins', field: 'host_header', send: post((ids) => `${domainPath(ids)}/origins`, (bad) => ({ host: 'o3.example.net', host_header: bad('www.ctl.example') })) },
  { route: 'POST origins', field: 'health_check_path', send: post((ids) => `${domainPath(ids)}/origins`, (bad) => ({ host: 'o4.example.net', health_check_path: bad('/health') })) },
  { route: 'PATCH origins', field: 'host', send: patch((ids) => `${domainPath(ids)}/origins/${ids.origin}`, (bad) => ({ host: bad('o5.example.net') })) },
  { route: 'PATCH origins', field: 'host_header', send: patch((ids) => `${domainPath(ids)}/origins/${ids.origin}`, (bad) => ({ host_header: bad('www.ctl.example') })) },
  { route: 'PATCH origins', field: 'health_check_path', send: patch((ids) => `${domainPath(ids)}/origins/${ids.origin}`, (bad) => ({ health_check_path: bad('/health') })) },
  { route: 'POST dns/records', field: 'name', send: post((ids) => `${domainPath(ids)}/dns/records`, (bad) => ({ type: 'A', name: bad('api'), content: '192.0.2.1' })) },
  { route: 'POST dns/records', field: 'content', send: post((ids) => `${domainPath(ids)}/dns/records`, (bad) => ({ type: 'CNAME', name: 'alias', content: bad('target.example.net') })) },
  { route: 'POST dns/records', field: 'content', send: post((ids) => `${domainPath(ids)}/dns/records`, (bad) => ({ type: 'TXT', name: 'note', content: bad('v=spf1 -all') })) },
  { route: 'PATCH dns/records', field: 'name', send: patch((ids) => `${domainPath(ids)}/dns/records/${ids.record}`, (bad) => ({ name: bad('www') })) },
  { route: 'PATCH dns/records', field: 'content', send: patch((ids) => `${domainPath(ids)}/dns/records/${ids.record}`, (bad) => ({ content: bad('192.0.2.10') })) },
  { route: 'PUT geo-routes', field: 'routes.0.target', send: put((ids) => `${domainPath(ids)}/dns/records/${ids.record}/geo-routes`, (bad) => ({ routes: [{ scope: 'default', target: bad('192.0.2.9') }] })) },
  { route: 'POST cache/purge', field: 'value', send: post((ids) => `${domainPath(ids)}/cache/purge`, (bad) => ({ scope: 'url', value: bad('https://ctl.example/page') })) },
  { route: 'POST cache/purge', field: 'value', send: post((ids) => `${domainPath(ids)}/cache/purge`, (bad) => ({ scope: 'domain', value: bad('www.ctl.example') })) },
  { route: 'PATCH /settings/dns', field: 'dns.proxied_hostname', send: patch(() => '/api/v1/settings/dns', (bad) => ({ proxied_hostname: bad('edge.example.net') })) },
  { route: 'POST headers', field: 'value', send: post((ids) => `${domainPath(ids)}/headers`, (bad) => ({ name: 'injected', header_name: 'X-A', value: bad('a') + 'Set-Cookie: x=1' })) },
  { route: 'PATCH headers', field: 'value', send: patch((ids) => `${domainPath(ids)}/headers/${ids.header}`, (bad) => ({ value: bad('a') + 'Set-Cookie: x=1' })) },
  { route: 'POST redirects', field: 'target', send: post((ids) => `${domainPath(ids)}/redirects`, (bad) => ({ name: 'injected', target: bad('https://a.example/') + 'Set-Cookie: x=1' })) },
  { route: 'PATCH redirects', field: 'target', send: patch((ids) => `${domainPath(ids)}/redirects/${ids.redirect}`, (bad) => ({ target: bad('/new') + 'Set-Cookie: x=1' })) },
  { route: 'POST redirects/import (json)', field: 'target', send: post((ids) => `${domainPath(ids)}/redirects/import`, (bad) => ({ format: 'json', rules: [{ name: 'imported', target: bad('/new') }] })) },
  {
    route: 'POST redirects/import (csv)',
    field: 'target',
    send: post((ids) => `${domainPath(ids)}/redirects/import`, (bad) => ({ format: 'csv', csv: `source,target\n/imported,"${bad('https://a.example/')}Set-Cookie: x=1"\n` })),
  },
  { route: 'POST page-rules', field: 'url_pattern', send: post((ids) => `${domainPath(ids)}/page-rules`, (bad) => ({ name: 'injected', url_pattern: bad('ctl.example/a'), settings: { cache_level: 'bypass' } })) },
  {
    route: 'POST page-rules',
    field: 'settings.forwarding_url.url',
    send: post((ids) => `${domainPath(ids)}/page-rules`, (bad) => ({ name: 'injected', url_pattern: 'ctl.example/go/*', settings: { forwarding_url: { url: bad('https://a.example/') } } })),
  },
  { route: 'PATCH page-rules', field: 'url_pattern', send: patch((ids) => `${domainPath(ids)}/page-rules/${ids.page}`, (bad) => ({ url_pattern: bad('ctl.example/b') })) },
  {
    route: 'PATCH page-rules',
    field: 'settings.forwarding_url.url',
    send: patch((ids) => `${domainPath(ids)}/page-rules/${ids.page}`, (bad) => ({ settings: { forwarding_url: { url: bad('https://b.example/') } } })),
  },
];

describe('control characters in values that become headers, URLs or hostnames', () => {
  let core: TestCore;
  let ids: Ids;
  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: 'ctl-token' });
    core.token = 'ctl-token';
    const domain = (await core.createDomain('ctl.example')).id;
    const base = `/api/v1/domains/${domain}`;
    ids = {
      domain,
      origin: (await core.post(`${base}/origins`, { host: 'o1.example.net' }, 201)).data.id,
      record: (await core.post(`${base}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10' }, 201)).data.id,
      redirect: (await core.post(`${base}/redirects`, { name: 'fixture', target: '/new' }, 201)).data.id,
      header: (await core.post(`${base}/headers`, { name: 'fixture', header_name: 'X-A', value: 'a' }, 201)).data.id,
      page: (await core.post(`${base}/page-rules`, { name: 'fixture', url_pattern: 'ctl.example/go/*', settings: { forwarding_url: { url: 'https://b.example/$1' } } }, 201)).data.id,
    };
  });
  after(async () => {
    await core.stop();
  });

  // Everything the routes above could write, audit or publish.
  async function stored(): Promise<string> {
    const db = core.db;
    const byId = { orderBy: { id: 'asc' as const } };
    return JSON.stringify([
      await db.domain.findMany(byId),
      await db.origin.findMany(byId),
      await db.dnsRecord.findMany(byId),
      await db.geoRoute.findMany(byId),
      await db.redirectRule.findMany(byId),
      await db.headerRule.findMany(byId),
      await db.pageRule.findMany(byId),
      await db.purgeRequest.findMany(byId),
      await db.setting.findMany({ orderBy: [{ group: 'asc' }, { key: 'asc' }] }),
      await db.auditEvent.count(),
      await db.publishState.findMany(),
    ], (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
  }

  for (const { route, field, send } of CASES) {
    for (const [name, character] of CHARACTERS) {
      it(`${route}: refuses ${name} in ${field} with 422 on ${field} and stores nothing`, async () => {
        const before = await stored();
        const error = await send(core, ids, (valid) => `${valid}${character}`);
        expect(error.field).to.equal(field);
        expect(JSON.stringify(error)).to.match(field.startsWith('dns.') ? /must be a hostname/ : /must not contain control characters \(CR, LF, NUL/);
        expect(await stored()).to.equal(before);
      });
    }
  }

  it('accepts the same values without the control character', async () => {
    const base = domainPath(ids);
    await core.patch(`${base}/origins/${ids.origin}`, { host: 'o5.example.net', host_header: 'www.ctl.example', health_check_path: '/health' });
    await core.patch(`${base}/headers/${ids.header}`, { value: 'max-age=60; includeSubDomains' });
    await core.patch(`${base}/redirects/${ids.redirect}`, { target: 'https://a.example/new' });
  });

  it('percent-encodes CR/LF that a request smuggles into a redirect Location through captures or the appended path', async () => {
    const base = domainPath(ids);
    await core.post(`${base}/redirects`, { name: 'capture', priority: 1, match: { paths: [{ kind: 'wildcard', value: '/cap/*' }] }, target: '/to/$1' }, 201);
    await core.post(`${base}/redirects`, { name: 'whole path', priority: 2, match: { paths: [{ kind: 'prefix', value: '/move/' }] }, target: 'https://new.example/', preserve_path: true, preserve_query: false }, 201);
    const captured = (await core.post(`${base}/redirects/test`, { url: 'https://ctl.example/cap/x%0D%0ASet-Cookie:%20a=1' })).data;
    expect(captured.location).to.equal('/to/x%0D%0ASet-Cookie:%20a=1');
    const moved = (await core.post(`${base}/redirects/test`, { url: 'https://ctl.example/move/%0Ax' })).data;
    expect(moved.location).to.equal('https://new.example/move/%0Ax');
    const forwarded = (await core.post(`${base}/page-rules/test`, { url: 'https://ctl.example/go/%0D%0Ax' })).data;
    expect(forwarded.forwarding.location).to.equal('https://b.example/%0D%0Ax');
  });
});

describe('the shared control-character rule', () => {
  it('is one pattern in the JSON Schema and in the code', () => {
    const schema = JSON.parse(readFileSync(new URL('../../schemas/api/no-control-characters.json', import.meta.url), 'utf8'));
    expect(schema.pattern).to.equal(NO_CONTROL_CHARACTERS_PATTERN);
    const pattern = new RegExp(NO_CONTROL_CHARACTERS_PATTERN, 'u');
    for (const code of [0, 9, 10, 13, 31, 0x7f, 0x80, 0x85, 0x9f, 0x2028, 0x2029]) {
      const text = `a${String.fromCodePoint(code)}b`;
      expect(pattern.test(text), `U+${code.toString(16)}`).to.equal(false);
      expect(hasControlCharacter(text), `U+${code.toString(16)}`).to.equal(true);
    }
    for (const text of ['max-age=31536000; includeSubDomains', 'https://bücher.example/ä?q=1#x', '~!@#$%^&*()_+{}|:"<>?', '\u00a0\u200b']) {
      expect(pattern.test(text), text).to.equal(true);
      expect(hasControlCharacter(text), text).to.equal(false);
    }
    expect(CONTROL_CHARACTERS_DETAIL).to.match(/^must not contain control characters/);
  });

  it('keeps header rule values to visible ASCII: the ASCII pattern of the schema is the code\'s', () => {
    const schema = JSON.parse(readFileSync(new URL('../../schemas/api/header-rule-create.json', import.meta.url), 'utf8'));
    expect(schema.properties.value.pattern).to.equal(ASCII_ONLY_PATTERN);
    const ascii = new RegExp(ASCII_ONLY_PATTERN, 'u');
    const control = new RegExp(NO_CONTROL_CHARACTERS_PATTERN, 'u');
    const accepted = (text: string) => ascii.test(text) && control.test(text);
    expect(accepted('nosniff; a=b ~!')).to.equal(true);
    for (const text of ['caf\u00e9', 'ok \u2713', 'a\tb', 'a\u007fb']) expect(accepted(text), text).to.equal(false);
  });

  it('percent-encodes everything but visible ASCII as UTF-8 for a Location, a lone surrogate as U+FFFD', () => {
    expect(encodeForLocation('/a\r\nb\u0000c\u2028d é')).to.equal('/a%0D%0Ab%00c%E2%80%A8d%20%C3%A9');
    expect(encodeForLocation('/\u010a/\u{1f600}/\ud800')).to.equal('/%C4%8A/%F0%9F%98%80/%EF%BF%BD');
  });
});

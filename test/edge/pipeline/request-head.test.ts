import { expect } from 'chai';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { dropClientClaims, parseRequestHead, type HeadRefusal, type RequestHead } from '../../../src/edge/pipeline/request-head.js';
import { normaliseHost } from '../../../src/shared/request-host.js';
import { matchingPath, normalisePath } from '../../../src/shared/request-path.js';

function head(url: string, headerLines: [string, string][] = [['Host', 'a.test']], method = 'GET'): RequestHead | HeadRefusal {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of headerLines) headers[name.toLowerCase()] ??= value;
  return parseRequestHead({ method, url, headers, rawHeaders: headerLines.flat() } as unknown as IncomingMessage);
}

describe('the edge door: host', () => {
  const valid: [string, string][] = [
    ['a.test', 'a.test'],
    ['A.Test', 'a.test'],
    ['a.test.', 'a.test'],
    ['a.test:8081', 'a.test'],
    ['a.test:', 'a.test'],
    ['A.TEST.:443', 'a.test'],
    ['_dmarc.a-b.test', '_dmarc.a-b.test'],
    ['192.0.2.1:80', '192.0.2.1'],
    ['[::1]', '[::1]'],
    ['[2001:DB8::1]:8443', '[2001:db8::1]'],
  ];
  for (const [authority, host] of valid) {
    it(`normalises ${JSON.stringify(authority)} to ${host}`, () => {
      expect(normaliseHost(authority)).to.equal(host);
    });
  }

  const invalid = [
    'a.test:"><svg/onload=alert(1)>',
    'a.test:80:80',
    'a.test:8o',
    'a.test:123456',
    'a.test:65536',
    'a.test/evil',
    'a.test\\evil',
    'user@a.test',
    'a..test',
    '.a.test',
    'a.test..',
    'a test',
    'a%2etest',
    '*.a.test',
    'a.test;x',
    'h\u00f6st.test',
    'a.test\u0000',
    'a.t\u0130st',
    'a.test\r\nx: y',
    '',
    '.',
    '[::1',
    '[::1]x',
    '[::1]:x',
    '[not-an-address]',
    `${'a'.repeat(250)}.test`,
  ];
  for (const authority of invalid) {
    it(`refuses ${JSON.stringify(authority.slice(0, 40))}`, () => {
      expect(normaliseHost(authority)).to.equal(undefined);
    });
  }
});

describe('the edge door: path', () => {
  const canonical: [string, string][] = [
    ['/admin', '/admin'],
    ['//admin', '/admin'],
    ['/./admin', '/admin'],
    ['/%2e/admin', '/admin'],
    ['/%2E%2E/admin', '/admin'],
    ['/.//admin', '/admin'],
    ['/x/../admin', '/admin'],
    ['/x/%2e%2e/admin', '/admin'],
    ['/../../admin', '/admin'],
    ['/%61dmin%ff', '/admin%FF'],
    ['/%7euser/%7Efile', '/~user/~file'],
    ['/a%2fb', '/a%2Fb'],
    ['/a%2F..%2Fb', '/a%2F..%2Fb'],
    ['/a/b/..', '/a/'],
    ['/a/b/.', '/a/b/'],
    ['/a/', '/a/'],
    ['/', '/'],
    ['/..', '/'],
    ['/.well-known/acme-challenge/x', '/.well-known/acme-challenge/x'],
    ['/a%00b', '/a%00b'],
    ['/caf%c3%a9', '/caf%C3%A9'],
  ];
  for (const [raw, expected] of canonical) {
    it(`normalises ${raw} to ${expected}`, () => {
      expect(normalisePath(raw)).to.equal(expected);
    });
  }

  for (const raw of ['/100%', '/a%zz', '/a%2', '/%%41']) {
    it(`refuses the malformed escape of ${raw}`, () => {
      expect(normalisePath(raw)).to.equal(undefined);
    });
  }

  const matching: [string, string][] = [
    ['/caf%C3%A9', '/café'],
    ['/admin%FF', '/admin%FF'],
    ['/a%20b%FF/caf%C3%A9', '/a b%FF/café'],
    ['/%C3%A9%FF%C3%A9', '/é%FFé'],
    ['/a%2Fb%3Fc', '/a/b%3Fc'],
    ['/%E2%82', '/%E2%82'],
    ['/a/..%2F..%2Fadmin', '/admin'],
    ['/x%2F%2Fadmin', '/x/admin'],
    ['/..;/admin', '/admin'],
    ['/;x/admin', '/admin'],
    ['/admin;jsessionid=1/users', '/admin/users'],
    ['/a%252F..%252Fb', '/a%2F..%2Fb'],
  ];
  for (const [path, expected] of matching) {
    it(`matches rules against ${path} as ${expected}`, () => {
      expect(matchingPath(path)).to.equal(expected);
    });
  }
});

describe('the edge door: request line and Host', () => {
  it('takes the host of an absolute-form target over the Host header (RFC 9112 §3.2.2)', () => {
    expect(head('http://B.test./admin?x=1', [['Host', 'a.test']])).to.deep.equal({ host: 'b.test', path: '/admin', rawPath: '/admin', query: 'x=1' });
  });

  it('reads an absolute-form target without a path as /', () => {
    expect(head('https://b.test?x=1')).to.include({ host: 'b.test', path: '/', query: 'x=1' });
    expect(head('http://b.test')).to.include({ host: 'b.test', path: '/' });
  });

  it('refuses userinfo and an invalid authority in an absolute-form target', () => {
    expect(head('http://a.test@b.test/')).to.include({ status: 400 });
    expect(head('http://b.test:x/')).to.include({ status: 400 });
    expect(head('http:///admin')).to.include({ status: 400 });
  });

  it('refuses an invalid Host with 400 whatever the site', () => {
    expect(head('/', [['Host', 'a.test:"><svg/onload=alert(1)>']])).to.include({ status: 400 });
    expect(head('/', [['Host', '']])).to.include({ status: 400 });
  });

  it('keeps the normalised path and the path as sent', () => {
    expect(head('//%61dmin/./x?q=%zz')).to.deep.equal({ host: 'a.test', path: '/admin/x', rawPath: '//%61dmin/./x', query: 'q=%zz' });
  });

  it('refuses a malformed escape in the path with 400', () => {
    expect(head('/a%zz')).to.include({ status: 400 });
  });

  it('answers a request without a Host (HTTP/1.0) with no host', () => {
    expect(head('/', [])).to.include({ host: '', path: '/' });
  });

  it('refuses two Host lines, TRACE and TRACK, and a target that is not a path', () => {
    expect(head('/', [['Host', 'a.test'], ['host', 'b.test']])).to.include({ status: 400 });
    expect(head('/', undefined, 'TRACE')).to.include({ status: 405 });
    expect(head('/', undefined, 'TRACK')).to.include({ status: 405 });
    expect(head('*', undefined, 'OPTIONS')).to.include({ status: 400 });
    expect(head('ftp://a.test/')).to.include({ status: 400 });
  });
});

describe('the edge door: headers the client may not send on', () => {
  // The raw lines of `headers` as Node keeps them beside.
  const rawLines = (headers: IncomingHttpHeaders) => Object.entries(headers).flatMap(([name, value]) => [name, String(value)]);

  it('removes the claims only a proxy makes: host, path, method and client', () => {
    const headers: IncomingHttpHeaders = { forwarded: 'host=evil.example', 'x-original-url': '/admin', 'x-rewrite-url': '/admin', 'x-http-method-override': 'DELETE', 'x-forwarded-port': '443', 'x-real-ip': '6.6.6.6', 'true-client-ip': '6.6.6.6', 'x-kept': 'yes' };
    dropClientClaims(headers, rawLines(headers));
    expect(headers).to.deep.equal({ 'x-kept': 'yes' });
  });

  it('finds the claims whatever the case the client wrote their names in', () => {
    const rawHeaders = ['FORWARDED', 'for=6.6.6.6', 'X-Real-IP', '6.6.6.6', 'True-Client-Ip', '6.6.6.6', 'x-ORIGINAL-url', '/admin', 'Accept', '*/*'];
    const headers: IncomingHttpHeaders = { forwarded: 'for=6.6.6.6', 'x-real-ip': '6.6.6.6', 'true-client-ip': '6.6.6.6', 'x-original-url': '/admin', accept: '*/*' };
    dropClientClaims(headers, rawHeaders);
    expect(headers).to.deep.equal({ accept: '*/*' });
  });

  it('keeps a name whose first character is a claim\'s initial only in its low byte, and an empty name', () => {
    // U+0178, U+0146 and U+0154 fold onto x, f and t in the initials' byte table; lower-cased they name no claim.
    const names = ['\u0178-real-ip', '\u0146orwarded', '\u0154rue-client-ip', ''];
    const headers: IncomingHttpHeaders = Object.fromEntries(names.map((name) => [name.toLowerCase(), 'v']));
    dropClientClaims(headers, names.flatMap((name) => [name, 'v']));
    expect(Object.keys(headers).sort()).to.deep.equal(names.map((name) => name.toLowerCase()).sort());
  });

  it('removes what the client\'s Connection names, but never the body framing, Host or Upgrade', () => {
    const headers: IncomingHttpHeaders = { connection: 'keep-alive, X-Edge-Verified, content-length, host, upgrade', 'x-edge-verified': 'forged', 'content-length': '3', host: 'a.test', upgrade: 'websocket', 'x-kept': 'yes' };
    dropClientClaims(headers, rawLines(headers));
    expect(headers).to.deep.equal({ connection: 'keep-alive, X-Edge-Verified, content-length, host, upgrade', 'content-length': '3', host: 'a.test', upgrade: 'websocket', 'x-kept': 'yes' });
  });
});

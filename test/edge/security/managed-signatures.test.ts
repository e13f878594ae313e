import { expect } from 'chai';
import { RequestInspection } from '../../../src/edge/security/request-inspection.js';
import type { SignatureSet } from '../../../src/edge/security/managed-signatures.js';
import { activeConfig, fakeContext, type FakeRequest } from '../rules/request-context.js';

const config = activeConfig({});
const ALL: SignatureSet[] = ['sqli', 'xss', 'path_traversal'];

function verdict(request: FakeRequest): string | undefined {
  const hit = new RequestInspection(fakeContext(config, request)).firstHit(ALL);
  return hit ? `${hit.set}@${hit.part}` : undefined;
}

describe('managed WAF signatures', () => {
  const attacks: [string, FakeRequest, string][] = [
    ['a quote-or tautology with a comment', { url: `/item?id=${encodeURIComponent("' OR 1=1--")}` }, 'sqli@query'],
    ['a quoted string tautology', { url: "/login?user=admin'%20or%20'a'='a" }, 'sqli@query'],
    ['UNION SELECT', { url: '/item?id=1+UNION+SELECT+username,password+FROM+users' }, 'sqli@query'],
    ['UNION/**/SELECT with comments for spaces', { url: '/item?id=1%20UNION/**/SELECT%201' }, 'sqli@query'],
    ['MySQL executable comments', { url: '/item?id=1%20/*!50000UNION*/%20SELECT%201' }, 'sqli@query'],
    ['a commented-out password check', { url: "/login?user=admin'--" }, 'sqli@query'],
    ['a stacked DROP TABLE', { url: '/item?id=1;%20DROP%20TABLE%20users' }, 'sqli@query'],
    ['a numeric tautology', { url: '/item?id=1%20or%202=2' }, 'sqli@query'],
    ['a time-based probe', { url: '/item?id=1%20and%20sleep(5)' }, 'sqli@query'],
    ['SQL in the User-Agent', { url: '/', headers: { 'user-agent': "x' OR '1'='1" } }, 'sqli@user-agent'],
    ['SQL in a cookie value', { url: '/', headers: { cookie: 'session=1%27%20UNION%20SELECT%20null%2Cnull--' } }, 'sqli@cookie'],
    ['a script tag', { url: '/search?q=%3Cscript%3Ealert(1)%3C/script%3E' }, 'xss@query'],
    ['a double-encoded script tag', { url: '/search?q=%253Cscript%253Ealert(1)' }, 'xss@query'],
    ['a javascript: URL', { url: '/go?to=javascript:alert(document.domain)' }, 'xss@query'],
    ['a javascript: URL split by a tab', { url: '/go?to=java%09script:alert(1)' }, 'xss@query'],
    ['an event handler attribute', { url: '/search?q=%22%20onerror=alert(1)' }, 'xss@query'],
    ['an image with onerror', { url: '/search?q=%3Cimg%20src=x%20onerror=alert(1)%3E' }, 'xss@query'],
    ['an svg onload in the path', { url: '/p/%3Csvg%20onload=alert(1)%3E' }, 'xss@path'],
    ['script in the Referer', { url: '/', headers: { referer: 'https://x.test/?q=<script>alert(1)</script>' } }, 'xss@referer'],
    ['../../etc/passwd in a query value', { url: '/download?file=../../etc/passwd' }, 'path_traversal@query'],
    ['encoded traversal in the path', { url: '/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd' }, 'path_traversal@path'],
    ['double-encoded traversal', { url: '/static/%252e%252e%252fsecret' }, 'path_traversal@path'],
    ['backslash traversal to win.ini', { url: '/download?file=..%5C..%5Cwindows%5Cwin.ini' }, 'path_traversal@query'],
    ['over-long UTF-8 dots', { url: '/static/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd' }, 'path_traversal@path'],
    ['a NUL byte', { url: '/download?file=report.pdf%00.php' }, 'path_traversal@query'],
    ['a php:// wrapper', { url: '/page?include=php://filter/resource=index' }, 'path_traversal@query'],
  ];

  for (const [name, request, expected] of attacks) {
    it(`trips on ${name}`, () => {
      expect(verdict(request)).to.equal(expected);
    });
  }

  const benign: [string, FakeRequest][] = [
    ['/blog/union-station', { url: '/blog/union-station' }],
    ['"select a plan"', { url: '/pricing?q=select+a+plan' }],
    ['a name with an apostrophe', { url: "/authors?name=O'Reilly+and+sons" }],
    ['quoted words joined by and', { url: '/search?q=%22Tom%22+and+%22Jerry%22' }],
    ["rock 'n' roll", { url: "/search?q=rock+'n'+roll" }],
    ['an en dash after an apostrophe', { url: "/search?q=it's+--+great" }],
    ['dots inside a file name', { url: '/files/report..final.pdf' }],
    ['a comparison in a search', { url: '/search?q=2+%3C+3&price=%3E%3D10' }],
    ['query names that start with on', { url: '/list?online=yes&onion=1' }],
    ['a base64 token', { url: '/cb?state=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0%3D' }],
    ['an absolute URL parameter', { url: '/login?next=https%3A%2F%2Fexample.com%2Faccount' }],
    ['a browser User-Agent', { url: '/', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36' } }],
    ['a JSON cookie', { url: '/', headers: { cookie: 'prefs=%7B%22theme%22%3A%22dark%22%2C%22order%22%3A%22asc%22%7D' } }],
    ['a Referer with a search', { url: '/', headers: { referer: 'https://www.google.com/search?q=union+select+tutorial' } }],
    ['a malformed percent escape', { url: '/a?q=%zz/b%' }],
  ];

  for (const [name, request] of benign) {
    it(`lets ${name} pass`, () => {
      expect(verdict(request)).to.equal(undefined);
    });
  }

  it('inspects a 16 KiB adversarial value in linear time', () => {
    const started = performance.now();
    for (const value of ["'=".repeat(8000), '<'.repeat(16000), '../'.repeat(5000) + 'x', '/*'.repeat(8000)]) verdict({ url: `/x?q=${encodeURIComponent(value)}` });
    expect(performance.now() - started).to.be.below(500);
  });
});

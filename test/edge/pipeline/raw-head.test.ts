import { expect } from 'chai';
import { rawResponseHead } from '../../../src/edge/pipeline/raw-head.js';

describe('response heads written straight to a socket', () => {
  it('writes the status line, every header line and the empty line as latin1', () => {
    const head = rawResponseHead(101, { upgrade: 'websocket', 'set-cookie': ['a=1', 'b=2'], 'x-latin': 'caf\u00e9' });
    expect(head.toString('latin1')).to.equal('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nset-cookie: a=1\r\nset-cookie: b=2\r\nx-latin: caf\u00e9\r\n\r\n');
    expect(head.includes(Buffer.from([0xe9]))).to.equal(true);
  });

  it('leaves out a header that could split the head, or that Node would refuse to send', () => {
    const head = rawResponseHead(200, { 'x-ok': 'yes', 'x-split': 'a\r\nSet-Cookie: evil=1', 'x-nul': 'a\u0000b', 'x-wide': '\u010a', 'bad name': 'x' }).toString('latin1');
    expect(head).to.equal('HTTP/1.1 200 OK\r\nx-ok: yes\r\n\r\n');
  });

  it('replaces a reason phrase that does not fit by the standard one', () => {
    expect(rawResponseHead(426, {}, 'Upgrade\r\nX: y').toString('latin1')).to.equal('HTTP/1.1 426 Upgrade Required\r\n\r\n');
    expect(rawResponseHead(426, {}, 'Try websockets').toString('latin1')).to.equal('HTTP/1.1 426 Try websockets\r\n\r\n');
  });
});

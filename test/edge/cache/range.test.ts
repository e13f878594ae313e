import { expect } from 'chai';
import { parseRange, rangeResponse } from '../../../src/edge/cache/range.js';

describe('edge cache ranges', () => {
  const table: [string | undefined, number, ReturnType<typeof parseRange>][] = [
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-500', 100, { start: 0, end: 99 }],
    ['bytes=50-500', 100, { start: 50, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=9-1', 100, undefined],
    ['bytes=0-1,5-6', 100, undefined],
    ['items=0-1', 100, undefined],
    ['bytes=-', 100, undefined],
    [undefined, 100, undefined],
  ];
  for (const [header, length, expected] of table) {
    it(`reads ${header} of ${length} bytes as ${JSON.stringify(expected)}`, () => {
      expect(parseRange(header, length)).to.deep.equal(expected);
    });
  }

  it('answers a satisfiable range with 206 and Content-Range', () => {
    const response = rangeResponse({}, Buffer.from('0123456789'), 'bytes=2-4');
    expect(response.status).to.equal(206);
    expect(response.headers['content-range']).to.equal('bytes 2-4/10');
    expect(response.headers['content-length']).to.equal('3');
    expect(String(response.body)).to.equal('234');
  });

  it('answers an unsatisfiable range with 416 and bytes */length', () => {
    const response = rangeResponse({}, Buffer.from('0123456789'), 'bytes=10-');
    expect(response.status).to.equal(416);
    expect(response.headers['content-range']).to.equal('bytes */10');
  });

  it('sends the whole object for several ranges', () => {
    const response = rangeResponse({}, Buffer.from('0123456789'), 'bytes=0-1,3-4');
    expect(response.status).to.equal(200);
    expect(String(response.body)).to.equal('0123456789');
  });
});

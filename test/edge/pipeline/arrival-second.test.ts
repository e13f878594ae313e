import { expect } from 'chai';
import { arrivalSecond } from '../../../src/edge/pipeline/arrival-second.js';

const nowSecond = () => Math.floor(Date.now() / 1000);

describe('the second a request arrived in (pipeline/arrival-second.ts)', () => {
  it('is the current Unix second, and the next one once the clock is past it', async () => {
    // A second an earlier test left remembered is forgotten by a timer; one already due runs first.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const before = nowSecond();
    const first = arrivalSecond();
    expect(first).to.be.within(before, nowSecond());
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 50));
    const later = arrivalSecond();
    expect(later).to.be.above(first);
    expect(later).to.equal(nowSecond());
  });
});

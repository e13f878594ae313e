import { expect } from 'chai';
import { inOrder } from '../../src/shared/in-order.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('inOrder', () => {
  it('finishes calls in the order they were made, even when an earlier one is slower', async () => {
    const finished: string[] = [];
    const run = inOrder(async (item: { name: string; ms: number }) => {
      await delay(item.ms);
      finished.push(item.name);
    }, () => undefined);
    await Promise.all([run({ name: 'last-known-good from disk', ms: 40 }), run({ name: 'newer from the core', ms: 1 })]);
    expect(finished).to.deep.equal(['last-known-good from disk', 'newer from the core']);
  });

  it('reports a failure and goes on with the next call', async () => {
    const errors: unknown[] = [];
    const done: number[] = [];
    const run = inOrder(async (item: number) => {
      if (item === 1) throw new Error('boom');
      done.push(item);
    }, (error) => errors.push(error));
    await Promise.all([run(1), run(2)]);
    expect(done).to.deep.equal([2]);
    expect(errors).to.have.length(1);
  });
});

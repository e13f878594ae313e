import { expect } from 'chai';
import { nextPullDelayMs, type PullPacing } from '../../../src/edge/agent/pull-pacing.js';

describe('edge agent: when the next config request goes', () => {
  const base: PullPacing = { waitSeconds: 30, refreshSeconds: 60, failures: 0, elapsedMs: 30_010, moved: false };
  const CASES: [string, Partial<PullPacing>, number][] = [
    ['plain polling waits the refresh interval', { waitSeconds: 0, elapsedMs: 5 }, 60_000],
    ['plain polling keeps the refresh interval after a failure', { waitSeconds: 0, failures: 3 }, 60_000],
    ['a long-poll the core held to its end is re-issued at once', {}, 0],
    ['a long-poll answered early with something new is re-issued at once', { elapsedMs: 40, moved: true }, 0],
    ['a long-poll answered early with nothing new (a core that does not hold) waits out the refresh interval', { elapsedMs: 40 }, 59_960],
    ['the first failure pauses half a second', { failures: 1, elapsedMs: 3 }, 500],
    ['failures in a row double the pause', { failures: 4 }, 4000],
    ['the pause after failures never exceeds the refresh interval', { failures: 30 }, 60_000],
  ];
  for (const [rule, change, expected] of CASES) {
    it(rule, () => {
      expect(nextPullDelayMs({ ...base, ...change })).to.equal(expected);
    });
  }
});

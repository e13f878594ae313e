import { expect } from 'chai';
import type { ApiClient } from '../../src/gitops/api-client.js';
import { EXIT_ROLLED_BACK, waitAndReport } from '../../src/gitops/rollout-wait.js';

// A client answering GET /config/rollout with the given answers in turn (the last one repeated).
function rolloutClient(answers: object[]): { client: ApiClient; asked: () => number } {
  let asked = 0;
  const client = { request: async () => ({ data: answers[Math.min(asked++, answers.length - 1)] }) } as unknown as ApiClient;
  return { client, asked: () => asked };
}

const base = { version: 8, pool_edges: 3, serving: 1, laggards: [] };

describe('--wait when the version is rolled back by the canary rollout', () => {
  it('stops at once with exit 6 and prints the summary with the numbers', async () => {
    const summary = 'version 8 failed on canaries edge-canary and was rolled back to version 7: canary 5xx ratio 100.00% (30 of 30 requests, 30 origin errors)';
    const { client, asked } = rolloutClient([{ ...base, status: 'rolling_out', summary: '1 of 3 pool edges serve version 8' }, { ...base, status: 'rolled_back', summary }]);
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (written.push(chunk), true)) as typeof process.stderr.write;
    const started = Date.now();
    try {
      expect(await waitAndReport(client, '12', 60)).to.equal(EXIT_ROLLED_BACK);
    } finally {
      process.stderr.write = write;
    }
    expect(EXIT_ROLLED_BACK).to.equal(6);
    expect(asked()).to.equal(2);
    expect(Date.now() - started).to.be.below(5000);
    expect(written.join('')).to.include(`rolled back: ${summary}\n`);
  });
});

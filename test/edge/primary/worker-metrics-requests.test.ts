import type { Worker } from 'node:cluster';
import { expect } from 'chai';
import { WorkerMetricsRequests } from '../../../src/edge/primary/worker-metrics-requests.js';
import type { ToWorker } from '../../../src/edge/worker/messages.js';

// A worker's end of the IPC channel: `answer` decides what it does with a metrics request.
function worker(id: number, answer: (message: ToWorker) => void, connected = true): Worker {
  return { id, isConnected: () => connected, send: (message: ToWorker) => (answer(message), true) } as unknown as Worker;
}

describe('metrics requests from the edge primary to its workers', () => {
  it('resolves with every worker\'s answer once all answered', async () => {
    const requests = new WorkerMetricsRequests();
    const answering = (id: number) => worker(id, (message) => message.t === 'metrics-request' && setImmediate(() => requests.answered(answering(id), message.id, [{ name: `from-${id}` }])));
    const answers = await requests.ask([answering(1), answering(2)]);
    expect(answers.missing).to.equal(0);
    expect(answers.metrics.map(([metric]) => (metric as { name: string }).name).sort()).to.deep.equal(['from-1', 'from-2']);
  });

  it('leaves out a worker that does not answer within 2 s, and a disconnected one, without failing the scrape', async () => {
    const requests = new WorkerMetricsRequests();
    const quick = worker(1, (message) => message.t === 'metrics-request' && setImmediate(() => requests.answered(quick, message.id, [])));
    const silent = worker(2, () => undefined);
    const gone = worker(3, () => expect.fail('a disconnected worker is not asked'), false);
    const started = Date.now();
    const answers = await requests.ask([quick, silent, gone]);
    expect(Date.now() - started).to.be.within(1900, 3000);
    expect(answers).to.deep.equal({ metrics: [[]], missing: 1 });
    requests.answered(silent, 1, [{ name: 'late' }]);
  });

  it('answers at once when no worker is connected', async () => {
    expect(await new WorkerMetricsRequests().ask([])).to.deep.equal({ metrics: [], missing: 0 });
  });
});

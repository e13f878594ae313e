import { expect } from 'chai';
import { sendTo } from '../../../src/edge/primary/send-to-worker.js';
import type { ToWorker } from '../../../src/edge/worker/messages.js';

const message: ToWorker = { t: 'probe', observations: [] };

describe('sendTo (primary to worker)', () => {
  it('does not send to a worker whose channel is closed', () => {
    let sent = 0;
    sendTo({ isConnected: () => false, send: () => ((sent += 1), true) }, message);
    expect(sent).to.equal(0);
  });

  it('swallows the error of a channel that closes while the message is on its way', () => {
    let callback: ((error: Error | null) => void) | undefined;
    const worker = {
      isConnected: () => true,
      send: (_message: unknown, _handle: unknown, done: (error: Error | null) => void) => {
        callback = done;
        return true;
      },
    };
    sendTo(worker as never, message);
    expect(callback).to.be.a('function');
    expect(() => callback!(Object.assign(new Error('Channel closed'), { code: 'ERR_IPC_CHANNEL_CLOSED' }))).not.to.throw();
  });
});

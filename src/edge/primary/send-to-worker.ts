import type { Worker } from 'node:cluster';
import type { ToWorker } from '../worker/messages.js';

/**
 * Sends `message` to a worker if its IPC channel is still open. A worker that
 * died or is disconnecting (shutdown, crash) has nobody to tell: the message is
 * dropped instead of raising ERR_IPC_CHANNEL_CLOSED in the primary.
 */
export function sendTo(worker: Pick<Worker, 'isConnected' | 'send'>, message: ToWorker): void {
  if (!worker.isConnected()) return;
  worker.send(message, undefined, () => undefined);
}

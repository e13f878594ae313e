import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import type { ActiveConfig } from '../config/active-config.js';
import type { RequestContext } from '../pipeline/context.js';
import { errorPage } from '../pipeline/error-page.js';
import { factsPhase } from '../pipeline/facts-phase.js';
import { hostPhase } from '../pipeline/host-phase.js';
import { hygienePhase } from '../pipeline/hygiene-phase.js';
import { createLogPhase } from '../pipeline/log-phase.js';
import { PipelineRunner } from '../pipeline/runner.js';
import type { OriginObservation } from './messages.js';
import type { TelemetryBuffer } from './telemetry-buffer.js';

/** What a worker's request handling is made of, built once per worker. */
export type WorkerPipeline = {
  runner: PipelineRunner;
  /** The client address of a request (X-Forwarded-For from trusted proxies, else the peer). */
  clientIp(req: IncomingMessage, peer: string): string;
  /** Prepares for a newly activated config; returns the ids of the purges this worker has now applied. */
  onConfig(next: ActiveConfig, first: boolean): string[];
  /** Probe results from the primary. */
  onProbe(observations: OriginObservation[]): void;
  /** A WebSocket (or other Upgrade) request. */
  upgrade(ctx: RequestContext, socket: Socket, head: Buffer): void;
  close(): void;
};

/** Assembles the phases of a worker in their order (docs/edge.md, "Pipeline"). */
export async function buildWorkerPipeline(deps: { config: Config; logger: Logger; telemetry: TelemetryBuffer }): Promise<WorkerPipeline> {
  const unavailable = { name: 'origin', run: (ctx: RequestContext) => ((ctx.response = errorPage(ctx, 503, 'No origin is configured.')), true) };
  const runner = new PipelineRunner([hostPhase, factsPhase, unavailable], [hygienePhase], createLogPhase(deps.telemetry), deps.logger);
  return {
    runner,
    clientIp: (_req, peer) => peer,
    onConfig: () => [],
    onProbe: () => undefined,
    upgrade: (_ctx, socket) => void socket.end('HTTP/1.1 501 Not Implemented\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'),
    close: () => undefined,
  };
}

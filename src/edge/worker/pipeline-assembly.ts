import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import { acmeChallengePhase, isAcmeChallengePath } from '../acme/acme-challenge-phase.js';
import { coreChallengeLookup } from '../acme/core-challenge-lookup.js';
import { createCachePhase } from '../cache/cache-phase.js';
import { cacheHeaderPhase } from '../cache/cache-header-phase.js';
import { DiskTier } from '../cache/disk-tier.js';
import { createInvalidationPhase, invalidateLocally } from '../cache/invalidation.js';
import { InvalidationLog, type Invalidation } from '../cache/invalidation-log.js';
import { MemoryTier } from '../cache/memory-tier.js';
import { applyPurges } from '../cache/purge.js';
import { PurgeLog } from '../cache/purge-log.js';
import type { ActiveConfig } from '../config/active-config.js';
import { createCountryServices, type CountryServices } from '../country/country-phase.js';
import type { RequestContext } from '../pipeline/context.js';
import type { EdgeResponse } from '../pipeline/response.js';
import { factsPhase } from '../pipeline/facts-phase.js';
import { cdnLoopId, loopPhase } from '../pipeline/cdn-loop.js';
import { hostPhase } from '../pipeline/host-phase.js';
import { hygienePhase } from '../pipeline/hygiene-phase.js';
import { createLogPhase } from '../pipeline/log-phase.js';
import { PipelineRunner } from '../pipeline/runner.js';
import { OriginBreakers } from '../origin/breaker.js';
import { OriginHealthView } from '../origin/health-view.js';
import { originPhase } from '../origin/origin-phase.js';
import { createOriginFetcher } from '../origin/proxy.js';
import { RetryBudget } from '../origin/retry-budget.js';
import { handleUpgrade } from '../origin/websocket.js';
import { errorPageFor, type OriginErrorKind } from '../origin/origin-error.js';
import { errorPage } from '../pipeline/error-page.js';
import { rawResponseHead } from '../pipeline/raw-head.js';
import { headerRulesPhase, requestHeaderRulesPhase } from '../rules/header-rules-phase.js';
import { pageRulesPhase } from '../rules/page-rules-phase.js';
import { redirectsPhase } from '../rules/redirects-phase.js';
import { CHALLENGE_PATH } from '../security/challenge-page.js';
import { challengePhase } from '../security/challenge-phase.js';
import { ipRulesPhase } from '../security/ip-rules-phase.js';
import { rateLimitPhase } from '../security/rate-limit-phase.js';
import { wafPhase } from '../security/waf-phase.js';
import type { OriginObservation } from '../origin/observation.js';
import { alwaysHttpsPhase } from '../tls/always-https-phase.js';
import { hstsPhase } from '../tls/hsts-phase.js';
import type { TelemetryBuffer } from './telemetry-buffer.js';
import type { WorkerMetrics } from '../metrics/worker-metrics.js';

/** What a worker's request handling is made of, built once per worker. */
export type WorkerPipeline = {
  /** Runs a customer request through every phase. */
  run(ctx: RequestContext): void;
  /** Writes the answer already in `ctx.response` (a request refused before any phase), logging it like any other. */
  answer(ctx: RequestContext): void;
  /** The client address of a request (X-Forwarded-For from trusted proxies, else the peer). */
  clientIp(headers: IncomingHttpHeaders, peer: string): string;
  /** Prepares for a newly activated config; returns the ids of the purges this worker has now applied. */
  onConfig(next: ActiveConfig, first: boolean): string[];
  /** Probe results from the primary. */
  onProbe(observations: OriginObservation[]): void;
  /** Resources another worker invalidated (an unsafe method's response): dropped from this worker's cache. */
  onInvalidate(invalidations: Invalidation[]): void;
  /** A WebSocket handshake: the request phases first (a refusal is answered on the socket), then the origin as a tunnel. */
  upgrade(ctx: RequestContext, socket: Socket, head: Buffer): void;
  close(): void;
};

type Deps = {
  config: Config;
  logger: Logger;
  telemetry: TelemetryBuffer;
  /** The worker's metrics (docs/metrics.md, "Edge"); nothing is counted when absent. */
  metrics?: WorkerMetrics;
  /** Tells the primary about resources this worker invalidated. */
  notifyInvalidation?: (invalidations: Invalidation[]) => void;
};

// An answer decided before the tunnel exists (a block, a challenge, the 404 page) written on the raw socket.
function writeToSocket(socket: Socket, response: EdgeResponse): void {
  if (!socket.writable) return void socket.destroy();
  const body = Buffer.isBuffer(response.body) ? response.body : Buffer.alloc(0);
  const headers: EdgeResponse['headers'] = {};
  for (const name in response.headers) if (name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding') headers[name] = response.headers[name];
  headers['content-length'] = String(body.length);
  headers.connection = 'close';
  socket.end(Buffer.concat([rawResponseHead(response.status, headers), body]));
}

/** Assembles the phases of a worker in their order (docs/edge.md, "Pipeline"). */
export async function buildWorkerPipeline({ config, logger, telemetry, metrics, notifyInvalidation }: Deps): Promise<WorkerPipeline> {
  const country: CountryServices = await createCountryServices(config, logger);
  const health = new OriginHealthView({ onObservation: (observation) => telemetry.observation(observation) });
  const breakers = new OriginBreakers();
  const budget = new RetryBudget();
  const cdnLoop = cdnLoopId(config.edgeClearanceSecret!);
  const fetcher = createOriginFetcher({ config, health, breakers, budget, cdnLoop, metrics });
  const memory = new MemoryTier(config.edgeCacheMemoryBytes);
  let active: ActiveConfig | undefined;
  metrics?.watch({ memory, breakers, active: () => active });
  const purgeLog = new PurgeLog();
  const invalidations = new InvalidationLog();
  const disk = config.edgeCacheDiskBytes > 0 ? new DiskTier(path.join(config.edgeDataDir, 'cache'), config.edgeCacheDiskBytes) : null;
  const cache = createCachePhase({
    memory,
    disk,
    fetchOrigin: (ctx, options) => fetcher.fetchOrigin(ctx, options),
    onStored: (file, size, resource) => telemetry.stored(file, size, resource),
    maxObjectBytes: config.edgeCacheMaxObjectBytes,
    onError: (error) => logger.warn({ err: error }, 'cache tier failure'),
    purges: purgeLog,
    invalidations,
  });
  const invalidate = createInvalidationPhase({ memory, invalidations, notify: notifyInvalidation ?? (() => undefined) });
  const challenge = challengePhase({ secret: config.edgeClearanceSecret!, ttlSeconds: config.edgeClearanceTtlSeconds });
  const log = createLogPhase(telemetry, metrics);
  const security = [ipRulesPhase, wafPhase, rateLimitPhase(), challenge];
  const beforeOrigin = [hostPhase, alwaysHttpsPhase, loopPhase(cdnLoop), country.phase, factsPhase, pageRulesPhase, redirectsPhase, ...security, requestHeaderRulesPhase];
  const responsePhases = [cacheHeaderPhase, invalidate, hstsPhase, headerRulesPhase, hygienePhase];
  const main = new PipelineRunner([...beforeOrigin, cache, originPhase(fetcher)], responsePhases, log, logger);
  // The challenge answer (POST /__cdn/challenge) is the edge's, whatever the host's rules say.
  const challengeAnswer = new PipelineRunner([hostPhase, country.phase, factsPhase, challenge], [hygienePhase], log, logger);
  // An Upgrade request runs the checks a request would, then goes to the origin as a tunnel;
  // whatever answers it gets the response phases that apply to a head without a cache.
  // ACME HTTP-01 validations are the edge's too, answered before any rule, rate limit or challenge.
  const acmeAnswer = new PipelineRunner([acmeChallengePhase(coreChallengeLookup(config))], [hygienePhase], log, logger);
  const upgradeResponsePhases = [headerRulesPhase, hygienePhase];
  const upgradeChecks = new PipelineRunner(beforeOrigin, upgradeResponsePhases, log, logger);
  const seenPurges = new Set<string>();

  return {
    run: (ctx) => (ctx.path === CHALLENGE_PATH ? challengeAnswer : isAcmeChallengePath(ctx.path) ? acmeAnswer : main).run(ctx),
    answer: (ctx) => main.answer(ctx),
    clientIp: (headers, peer) => country.clientIp(headers, peer),
    onConfig(next, first) {
      active = next;
      const fresh = next.purges.filter((purge) => !seenPurges.has(purge.id));
      for (const purge of fresh) seenPurges.add(purge.id);
      if (!first) applyPurges(fresh, memory, next, purgeLog);
      const live = new Set(next.purges.map((purge) => purge.id));
      for (const id of seenPurges) if (!live.has(id)) seenPurges.delete(id);
      health.retainOnly(next.originIds);
      breakers.retainOnly(next.originIds);
      budget.retainOnly(next.domainsById);
      return fresh.map((purge) => purge.id);
    },
    onInvalidate: (batch) => invalidateLocally(batch, { memory, invalidations }, Date.now()),
    onProbe: (observations) => {
      for (const observation of observations) health.applyProbe(observation);
    },
    upgrade(ctx, socket, head) {
      const done = (status: number): void => {
        ctx.tunnelStatus = status;
        upgradeChecks.logged(ctx);
      };
      const fail = (error: unknown): void => {
        logger.error({ err: error, requestId: ctx.requestId }, 'upgrade failed');
        socket.destroy();
        done(500);
      };
      // The origin's answer (101 or a refusal) or the edge's own page, through the response phases.
      const finish = (response: EdgeResponse): EdgeResponse => {
        ctx.response = response;
        for (const phase of upgradeResponsePhases) phase.run(ctx);
        return ctx.response;
      };
      upgradeChecks.decide(ctx).then((handled) => {
        if (handled) {
          writeToSocket(socket, ctx.response!);
          return done(ctx.response!.status);
        }
        const target = {
          domain: ctx.domain!,
          host: ctx.host,
          target: ctx.query ? `${ctx.path}?${ctx.query}` : ctx.path,
          clientIp: ctx.clientIp,
          scheme: ctx.scheme,
          headers: ctx.headers,
          finishHead: (status: number, headers: EdgeResponse['headers']) => finish({ status, headers, body: null }).headers,
          refuse: (kind: OriginErrorKind) => {
            const { status, detail } = errorPageFor(kind);
            writeToSocket(socket, finish(errorPage(ctx, status, detail)));
            return status;
          },
        };
        handleUpgrade(ctx.req, socket, head, target, { config, health, breakers, budget, cdnLoop }).then(done, fail);
      }).catch(fail);
    },
    close() {
      fetcher.close();
      country.close();
    },
  };
}

// The metrics of one edge worker (docs/metrics.md, "Edge"). The request path only adds to plain
// numbers in typed arrays indexed by small fixed sets (status class, cache status, finding kind and
// action, origin error kind); prom-client's metrics are set from them when the primary asks for
// them (a scrape), so a cache hit builds no label string and hashes nothing. The primary adds up
// every worker's answer with its own metrics (edge-scrape.ts).
import { Histogram, Registry } from 'prom-client';
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import { gaugeReadWhenScraped } from '../../metrics/scraped-gauge.js';
import type { MemoryTier } from '../cache/memory-tier.js';
import type { ActiveConfig } from '../config/active-config.js';
import type { OriginBreakers } from '../origin/breaker.js';
import type { OriginErrorKind } from '../origin/origin-error.js';
import { CACHE_STATUSES, cacheStatusIndex, type CacheStatus, type SecurityFinding } from '../pipeline/context.js';
import { CACHE_METRICS } from './cache-metric-names.js';
import { registerCounterFrom, type CounterInc } from './scraped-counter.js';

export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'other'] as const;
export const FINDING_KINDS: readonly SecurityFinding['kind'][] = ['waf', 'rate_limit', 'ip_rule', 'bot', 'geo', 'challenge'];
export const FINDING_ACTIONS: readonly SecurityFinding['action'][] = ['block', 'challenge', 'allow', 'log', 'pass'];
export const ORIGIN_ERROR_KINDS: readonly OriginErrorKind[] = ['connect', 'tls', 'timeout', 'invalid_response', 'breaker_open', 'no_origin', 'too_large', 'overloaded'];
export const BREAKER_STATES = ['closed', 'half_open', 'open'] as const;

/** The decisions whose series exist from the start (rate() and alert rules see them before the first one); others appear once taken. */
const ZERO_STARTED_DECISIONS = ['waf', 'rate_limit', 'ip_rule'].flatMap((kind) => ['block', 'challenge', 'log'].map((action) => ({ kind, action })));

const KIND_INDEX = Object.fromEntries(FINDING_KINDS.map((kind, index) => [kind, index])) as Record<SecurityFinding['kind'], number>;
const ACTION_INDEX = Object.fromEntries(FINDING_ACTIONS.map((action, index) => [action, index])) as Record<SecurityFinding['action'], number>;
const ERROR_INDEX = Object.fromEntries(ORIGIN_ERROR_KINDS.map((kind, index) => [kind, index])) as Record<OriginErrorKind, number>;
const ORIGIN_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The slot of a request in a status class × cache status table. */
function requestSlot(status: number, cacheStatus: CacheStatus): number {
  const statusClass = Math.floor(status / 100);
  return (statusClass >= 1 && statusClass <= 5 ? statusClass - 1 : 5) * CACHE_STATUSES.length + cacheStatusIndex(cacheStatus);
}

function requestTable(): Float64Array {
  return new Float64Array(STATUS_CLASSES.length * CACHE_STATUSES.length);
}

/** Each status class × cache status pair with its count, every pair included (zeros start the series). */
function eachRequestPair(table: Float64Array, visit: (labels: { status_class: string; cache_status: string }, value: number) => void): void {
  for (let statusClass = 0; statusClass < STATUS_CLASSES.length; statusClass++) {
    for (let cache = 0; cache < CACHE_STATUSES.length; cache++) {
      visit({ status_class: STATUS_CLASSES[statusClass], cache_status: CACHE_STATUSES[cache].toLowerCase() }, table[statusClass * CACHE_STATUSES.length + cache]);
    }
  }
}

/** What the log phase reports to the metrics, once per request. */
export type RequestMetrics = {
  /** One request answered (`apex`: its domain's, when a domain served it). */
  request(status: number, cacheStatus: CacheStatus, apex: string | undefined): void;
  /** The security decisions taken on one request. */
  findings(findings: readonly SecurityFinding[]): void;
};

/** What the origin fetcher reports to the metrics. */
export type OriginMetrics = {
  /** An attempt that got a response's head after `seconds`. */
  originResponded(seconds: number): void;
  /** An origin failure: one per failed attempt, or per request refused before any attempt. */
  originFailed(kind: OriginErrorKind): void;
  /** A failed attempt retried (`sent`), or not retried because the retry budget was spent. */
  originRetry(outcome: 'sent' | 'refused_by_budget'): void;
};

/** What a worker's metrics read when scraped: its memory tier, its breakers and the config they apply to. */
export type WorkerMetricsSources = { memory: MemoryTier; breakers: OriginBreakers; active: () => ActiveConfig | undefined };

/** The metrics of one worker: cheap recorders for the request path, and its registry for the primary's scrape. */
export class WorkerMetrics implements RequestMetrics, OriginMetrics {
  readonly registry = new Registry();
  private readonly requests = requestTable();
  /** Only the domains of CDN_EDGE_METRICS_DOMAINS have a table. */
  private readonly domainRequests: Map<string, Float64Array>;
  private readonly decisions = new Float64Array(FINDING_KINDS.length * FINDING_ACTIONS.length);
  private readonly originErrors = new Float64Array(ORIGIN_ERROR_KINDS.length);
  private readonly retries = { sent: 0, refused_by_budget: 0 };
  private readonly originLatency: Histogram;

  constructor(domains: readonly string[]) {
    this.domainRequests = new Map(domains.map((domain) => [domain, requestTable()]));
    this.originLatency = new Histogram({ name: 'cdn_edge_origin_response_seconds', help: 'Time from sending a request to an origin to its response head, per attempt.', buckets: ORIGIN_SECONDS_BUCKETS, registers: [this.registry] });
    this.registerCounters();
  }

  request(status: number, cacheStatus: CacheStatus, apex: string | undefined): void {
    const slot = requestSlot(status, cacheStatus);
    this.requests[slot]++;
    if (apex !== undefined && this.domainRequests.size > 0) {
      const table = this.domainRequests.get(apex);
      if (table) table[slot]++;
    }
  }

  findings(findings: readonly SecurityFinding[]): void {
    for (const finding of findings) this.decisions[KIND_INDEX[finding.kind] * FINDING_ACTIONS.length + ACTION_INDEX[finding.action]]++;
  }

  originResponded(seconds: number): void {
    this.originLatency.observe(seconds);
  }

  originFailed(kind: OriginErrorKind): void {
    this.originErrors[ERROR_INDEX[kind]]++;
  }

  originRetry(outcome: 'sent' | 'refused_by_budget'): void {
    this.retries[outcome]++;
  }

  /** Registers the gauges read from the worker's cache and breakers when scraped. */
  watch(sources: WorkerMetricsSources): void {
    gaugeReadWhenScraped(this.registry, CACHE_METRICS.objects, (gauge) => gauge.set({ tier: 'memory' }, sources.memory.count));
    gaugeReadWhenScraped(this.registry, CACHE_METRICS.bytes, (gauge) => gauge.set({ tier: 'memory' }, sources.memory.bytes));
    this.counter(CACHE_METRICS.evictions, (inc) => inc({ tier: 'memory' }, sources.memory.evictions));
    this.watchBreakers(sources);
  }

  // Breakers are per worker: the edge-wide count adds up workers' breakers; a listed domain's origin shows its worst worker.
  private watchBreakers({ breakers, active }: WorkerMetricsSources): void {
    const help = 'Origin circuit breakers by state (each worker keeps its own breaker per origin: an origin counts once per worker).';
    gaugeReadWhenScraped(this.registry, { name: 'cdn_edge_origin_breakers', help, labelNames: ['state'] }, (gauge) => {
      const counts = { closed: 0, half_open: 0, open: 0 };
      const now = Date.now();
      for (const domain of active()?.domains ?? []) for (const origin of domain.origins) counts[breakers.state(origin, now)]++;
      for (const state of BREAKER_STATES) gauge.set({ state }, counts[state]);
    });
    const stateHelp = 'Breaker state of each origin of the domains in CDN_EDGE_METRICS_DOMAINS: 0 closed, 1 half-open, 2 open (the worst worker\'s).';
    gaugeReadWhenScraped(this.registry, { name: 'cdn_edge_origin_breaker_state', help: stateHelp, labelNames: ['domain', 'origin'], aggregator: 'max' }, (gauge) => {
      gauge.reset();
      if (this.domainRequests.size === 0) return;
      const now = Date.now();
      for (const domain of active()?.domains ?? []) {
        if (!this.domainRequests.has(domain.apex)) continue;
        for (const origin of domain.origins) gauge.set({ domain: domain.apex, origin: originLabel(origin) }, BREAKER_STATES.indexOf(breakers.state(origin, now)));
      }
    });
  }

  private registerCounters(): void {
    this.counter({ name: 'cdn_edge_requests_total', help: 'Requests the edge answered, by status class and cache status (X-Cache, lower case; none: the edge answered itself).', labelNames: ['status_class', 'cache_status'] }, (inc) => eachRequestPair(this.requests, inc));
    const domainHelp = 'Requests of the domains in CDN_EDGE_METRICS_DOMAINS, by domain, status class and cache status.';
    this.counter({ name: 'cdn_edge_domain_requests_total', help: domainHelp, labelNames: ['domain', 'status_class', 'cache_status'] }, (inc) => {
      for (const [domain, table] of this.domainRequests) eachRequestPair(table, (labels, value) => inc({ domain, ...labels }, value));
    });
    this.counter({ name: 'cdn_edge_security_decisions_total', help: 'Security decisions taken on requests, by kind (waf, rate_limit, ip_rule, bot, geo, challenge) and action.', labelNames: ['kind', 'action'] }, (inc) => {
      for (const { kind, action } of ZERO_STARTED_DECISIONS) inc({ kind, action }, 0);
      FINDING_KINDS.forEach((kind, k) => {
        FINDING_ACTIONS.forEach((action, a) => {
          const count = this.decisions[k * FINDING_ACTIONS.length + a];
          if (count > 0) inc({ kind, action }, count);
        });
      });
    });
    this.counter({ name: 'cdn_edge_challenges_total', help: 'Browser challenges: issued (the challenge page was answered), passed (a solution was accepted), failed (a solution was refused).', labelNames: ['outcome'] }, (inc) => {
      const actions = FINDING_ACTIONS.length;
      const issued = FINDING_KINDS.reduce((sum, _kind, k) => sum + this.decisions[k * actions + ACTION_INDEX.challenge], 0);
      inc({ outcome: 'issued' }, issued);
      inc({ outcome: 'passed' }, this.decisions[KIND_INDEX.challenge * actions + ACTION_INDEX.pass]);
      inc({ outcome: 'failed' }, this.decisions[KIND_INDEX.challenge * actions + ACTION_INDEX.block]);
    });
    this.counter({ name: 'cdn_edge_origin_errors_total', help: 'Origin failures by kind: one per failed attempt (connect, tls, timeout, invalid_response, overloaded), or per request refused before any attempt (breaker_open, no_origin, too_large).', labelNames: ['kind'] }, (inc) => {
      ORIGIN_ERROR_KINDS.forEach((kind, index) => inc({ kind }, this.originErrors[index]));
    });
    this.counter({ name: 'cdn_edge_origin_retries_total', help: 'Failed origin attempts retried (sent), or not retried because the domain\'s retry budget was spent (refused_by_budget).', labelNames: ['outcome'] }, (inc) => {
      inc({ outcome: 'sent' }, this.retries.sent);
      inc({ outcome: 'refused_by_budget' }, this.retries.refused_by_budget);
    });
  }

  private counter(metric: { name: string; help: string; labelNames: string[] }, read: (inc: CounterInc) => void): void {
    registerCounterFrom(this.registry, metric, read);
  }
}

function originLabel(origin: SnapshotOrigin): string {
  return `${origin.scheme}://${origin.host}:${origin.port}`;
}

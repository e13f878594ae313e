// Shared by the core's metrics and the edge's: the edge imports this, not core-metrics.ts, so its
// processes load none of the core's modules.
import { Gauge, type Aggregator, type Registry } from 'prom-client';

/** Registers a gauge whose value `collect` sets when the registry is scraped (`aggregator`: how the edge adds up its workers' values). */
export function gaugeReadWhenScraped(registry: Registry, metric: { name: string; help: string; labelNames?: string[]; aggregator?: Aggregator }, collect: (gauge: Gauge) => void | Promise<void>): void {
  new Gauge({
    ...metric,
    registers: [registry],
    collect() {
      return collect(this);
    },
  });
}

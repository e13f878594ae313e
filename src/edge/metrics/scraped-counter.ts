import { Counter, type Registry } from 'prom-client';

/** Adds `value` to the series of `labels`. */
export type CounterInc = (labels: Record<string, string>, value: number) => void;

/**
 * Registers a counter whose values `read` gives when the registry is scraped: the count itself is
 * kept elsewhere in a plain number (a request's path adds to it without prom-client), or already
 * exists (the agent's reload and telemetry counters), and is not counted twice.
 */
export function registerCounterFrom(registry: Registry, metric: { name: string; help: string; labelNames: string[] }, read: (inc: CounterInc) => void): void {
  new Counter({
    ...metric,
    registers: [registry],
    collect() {
      this.reset();
      read((labels, value) => this.inc(labels, value));
    },
  });
}

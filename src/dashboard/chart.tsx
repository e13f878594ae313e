import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { DataTable } from './components.js';

export type Series = { label: string; values: (number | null)[]; color: string; scale?: string };

/**
 * A time chart (uPlot) of series over bucket starts (unix seconds), sized to its container.
 * The figure is labelled; the numbers are also given as a table for screen readers and copying.
 */
export function TimeChart({ title, times, series, unit }: { title: string; times: number[]; series: Series[]; unit?: (value: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element || times.length === 0) return;
    const width = Math.max(280, element.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [{}, ...series.map((item) => ({ label: item.label, stroke: item.color, width: 2, scale: item.scale ?? 'y', value: (_: uPlot, value: number | null) => (value === null ? '—' : unit ? unit(value) : String(value)) }))],
        axes: [{}, { values: (_: uPlot, ticks: number[]) => ticks.map((tick) => (unit ? unit(tick) : String(tick))), size: 70 }],
        scales: { x: { time: true } },
      },
      [times, ...series.map((item) => item.values)] as uPlot.AlignedData,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, element.clientWidth), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, unit]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {times.length === 0 ? <p class="empty">No data in this window.</p> : <div ref={box} role="img" aria-label={`${title}: chart over ${times.length} points; the numbers are in the table below`} />}
      {times.length ? (
        <details>
          <summary>{title} as a table</summary>
          <DataTable
            label={`${title} as a table`}
            columns={['Time', ...series.map((item) => item.label)]}
            rows={times.map((time, index) => ({ time, index }))}
            rowKey={(row) => String(row.time)}
            cells={(row) => [new Date(row.time * 1000).toLocaleString(), ...series.map((item) => item.values[row.index] ?? '—')]}
          />
        </details>
      ) : null}
    </figure>
  );
}

/** Bars for a few labelled counts (status classes, countries): plain HTML, readable without the chart. */
export function Bars({ title, items }: { title: string; items: { label: string; value: number }[] }) {
  const max = Math.max(1, ...items.map((item) => item.value));
  return (
    <figure class="bars">
      <figcaption>{title}</figcaption>
      {items.length === 0 ? <p class="empty">No data in this window.</p> : null}
      <ul>
        {items.map((item) => (
          <li key={item.label}>
            <span class="bar-label">{item.label}</span>
            <span class="bar" style={{ width: `${(item.value / max) * 100}%` }} aria-hidden="true" />
            <span class="bar-value">{item.value}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}

export function bytes(value: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let index = 0;
  while (Math.abs(value) >= 1000 && index < units.length - 1) {
    value /= 1000;
    index++;
  }
  return `${Number(value.toFixed(1))} ${units[index]}`;
}

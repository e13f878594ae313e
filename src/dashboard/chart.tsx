import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { DataTable } from './components.js';

export type Series = { label: string; values: (number | null)[]; color: string; scale?: string };

const HOUR = 3600;
// Hours in the viewer's own locale and time zone.
const HOUR_LABEL = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** The last 24 hours as [from, to] in unix seconds, from the start of the first hourly bucket the API can return for it. */
export function lastDay(now = Date.now()): [number, number] {
  const to = Math.floor(now / 1000);
  return [Math.floor((to - 24 * HOUR) / HOUR) * HOUR, to];
}

// The value axis from 0 to a little above the largest value (never below 1), unless the chart fixes it (a ratio's [0, 1]).
function valueRange(fixed?: [number, number]): uPlot.Range.Function {
  return (_plot, _min, max) => fixed ?? uPlot.rangeNum(0, Math.max(max ?? 0, 1), 0.1, true);
}

/**
 * A time chart (uPlot) of series over bucket starts (unix seconds), sized to its container. Its time
 * axis is the fixed `span` ([from, to], e.g. `lastDay()`) labelled in hours of the viewer's time zone,
 * however few points there are; its value axis starts at 0 and is fixed to `range` when given (a
 * ratio's [0, 1]). The labels drawn on the canvas are also written to the box's `data-x-axis` and
 * `data-y-axis` attributes (a canvas has no text to read). The figure is labelled; the numbers are
 * also given as a table for screen readers and copying.
 */
export function TimeChart({ title, times, series, span, range, unit }: { title: string; times: number[]; series: Series[]; span: [number, number]; range?: [number, number]; unit?: (value: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element || times.length === 0) return;
    const width = Math.max(280, element.clientWidth);
    const drawn = { x: [] as string[], y: [] as string[] };
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [{}, ...series.map((item) => ({ label: item.label, stroke: item.color, width: 2, scale: item.scale ?? 'y', value: (_: uPlot, value: number | null) => (value === null ? '—' : unit ? unit(value) : String(value)) }))],
        axes: [
          { values: (_: uPlot, ticks: number[]) => (drawn.x = ticks.map((tick) => HOUR_LABEL.format(tick * 1000))) },
          { values: (_: uPlot, ticks: number[]) => (drawn.y = ticks.map((tick) => (unit ? unit(tick) : String(tick)))), size: 70 },
        ],
        scales: { x: { time: true, auto: false, range: span }, y: { range: valueRange(range) } },
        hooks: {
          draw: [
            () => {
              element.dataset.xAxis = drawn.x.join(' | ');
              element.dataset.yAxis = drawn.y.join(' | ');
            },
          ],
        },
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
  }, [times, series, span, range, unit]);
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

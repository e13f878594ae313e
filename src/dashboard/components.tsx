import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { ApiFailure } from './api.js';

/** An API error in words: what the API said, and which field it named. */
export function Failure({ failure }: { failure?: ApiFailure }) {
  if (!failure) return null;
  return (
    <p class="failure" role="alert">
      {failure.status ? `${failure.error} (${failure.status})` : failure.error}
      {failure.detail ? `: ${failure.detail}` : ''}
    </p>
  );
}

export function Loading({ when }: { when: boolean }) {
  return when ? (
    <p class="muted" role="status">
      Loading…
    </p>
  ) : null;
}

/** An honest empty state: what is missing and, when there is one, how to get it. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export const PAGE_SIZE = 50;

/** Previous/next over the API's limit/offset. */
export function Pager({ offset, count, onOffset }: { offset: number; count: number; onOffset: (offset: number) => void }) {
  if (offset === 0 && count < PAGE_SIZE) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - PAGE_SIZE))}>
        Previous
      </button>
      <span>
        {offset + 1}–{offset + count}
      </span>
      <button type="button" disabled={count < PAGE_SIZE} onClick={() => onOffset(offset + PAGE_SIZE)}>
        Next
      </button>
    </nav>
  );
}

export function Badge({ tone = 'neutral', children, title }: { tone?: 'neutral' | 'good' | 'warn' | 'bad' | 'git'; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

/** A unix time (seconds) as local date and time, or a dash. */
export function When({ at }: { at?: number | null }) {
  if (!at) return <span class="muted">—</span>;
  const date = new Date(at * 1000);
  return <time dateTime={date.toISOString()}>{date.toLocaleString()}</time>;
}

/** A table's box: it scrolls sideways on narrow screens, and can then be scrolled from the keyboard. */
export function TableBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-box" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

export type Column = string | { label: string; wrap: true };

/**
 * A list as a table in its scrolling box: a hidden caption naming it, one header per column and
 * one row per item (`cells` gives the row's cells in column order). A `wrap` column breaks long
 * values (record content, paths) instead of widening the table. On a narrow screen each row is a
 * card (styles.css): every cell shows its column's name (`data-label`), so a row's actions stay in view.
 */
export function DataTable<T>({ label, columns, rows, rowKey, cells }: { label: string; columns: Column[]; rows: T[]; rowKey: (row: T) => string; cells: (row: T) => ComponentChildren[] }) {
  const wraps = columns.map((column) => typeof column !== 'string');
  const names = columns.map((column) => (typeof column === 'string' ? column : column.label));
  return (
    <TableBox label={label}>
      <table>
        <caption class="visually-hidden">{label}</caption>
        <thead>
          <tr>
            {columns.map((column) => {
              const text = typeof column === 'string' ? column : column.label;
              return (
                <th scope="col" key={text}>
                  {text}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {cells(row).map((cell, index) => (
                <td key={index} class={wraps[index] ? 'content' : undefined} data-label={names[index]}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}

/** Named values (a settings group, cache or SSL settings) as a definition list. */
export function Values({ values, skip = [] }: { values: Record<string, unknown>; skip?: string[] }) {
  return (
    <dl class="settings">
      {Object.entries(values)
        .filter(([key]) => !skip.includes(key))
        .map(([key, value]) => (
          <div key={key}>
            <dt>{key.replace(/_/g, ' ')}</dt>
            <dd>{typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}</dd>
          </div>
        ))}
    </dl>
  );
}

/** A panel that takes the keyboard focus when it opens (an editor below a table), so it is not missed. */
export function FocusedPanel({ label, children }: { label: string; children: ComponentChildren }) {
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => panel.current?.focus(), []);
  return (
    <div class="editor" role="region" aria-label={label} tabIndex={-1} ref={panel}>
      {children}
    </div>
  );
}

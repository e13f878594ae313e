import type { JSX } from 'preact';
import type { ApiFailure } from './api.js';
import { FieldError } from './field-error.js';
import { describedBy, FieldGroup } from './form-field.js';

/**
 * The error to show at a field (`match.paths`), or with `within` at a row for anything inside it
 * (`match.paths.0.value` shown at `match.paths.0`): the returned failure names `field`.
 */
export type ErrorAt = (field: string, within?: boolean) => ApiFailure | undefined;

export type Described = ReturnType<typeof describedBy>;

/** The inputs of one row: its value, how to change it, its words ("Path 2") and what ties its inputs to its error. */
export type Row<T> = (value: T, set: (next: T) => void, name: string, described: Described) => JSX.Element;

// "Path" as "path" in a sentence, but "IP or CIDR" as it is.
const inSentence = (words: string) => (/^[A-Z][a-z]/.test(words) ? `${words.charAt(0).toLowerCase()}${words.slice(1)}` : words);

type RowsProps<T> = { id: string; field: string; legend: string; help?: string; item: string; rows: T[]; fresh: T; onRows: (rows: T[]) => void; errorAt: ErrorAt; row: Row<T> };

/**
 * A list value (a match's paths, a cache key's headers) as rows the user adds and removes under a
 * legend. Each row shows the error at it or inside it (`field.2`, `field.2.value`); the list's own
 * error (too many rows) shows under the legend's help.
 */
export function FieldRows<T>({ id, field, legend, help, item, rows, fresh, onRows, errorAt, row }: RowsProps<T>) {
  return (
    <FieldGroup id={id} legend={legend} help={help} failure={errorAt(field)} field={field}>
      {rows.map((value, index) => {
        const rowId = `${id}-${index}`;
        const rowField = `${field}.${index}`;
        const failure = errorAt(rowField, true);
        const name = `${item} ${index + 1}`;
        return (
          <div class="field-row" key={index}>
            {row(value, (next) => onRows(rows.map((old, at) => (at === index ? next : old))), name, describedBy(rowId, failure !== undefined, false))}
            <button type="button" class="secondary small" onClick={() => onRows(rows.filter((_, at) => at !== index))}>
              Remove {inSentence(name)}
            </button>
            <FieldError id={`${rowId}-error`} failure={failure} field={rowField} />
          </div>
        );
      })}
      <button type="button" class="secondary small" onClick={() => onRows([...rows, fresh])}>
        Add {inSentence(item)}
      </button>
    </FieldGroup>
  );
}

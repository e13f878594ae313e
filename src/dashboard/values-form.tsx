import { useState } from 'preact/hooks';
import type { FieldRule } from './api-schemas.js';
import { Field, FieldError, FormFailure } from './field-error.js';
import { choiceOf, labelOf } from './field-labels.js';
import { ListField } from './list-field.js';
import { useSubmit } from './use-submit.js';

type Value = string | number | boolean | null | string[];

/** Fields a domain's cache or SSL settings report about themselves, not settings to edit. */
export const REPORTED_FIELDS = ['domain_id', 'customised', 'updated_at'];

const isList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

function inputOf(value: unknown, rule?: FieldRule): 'select' | 'checkbox' | 'number' | 'text' | 'list' {
  if (rule?.options) return 'select';
  return typeof value === 'boolean' ? 'checkbox' : typeof value === 'number' ? 'number' : isList(value) ? 'list' : 'text';
}

// The field's help line, with its bounds when it has them.
function helpOf(help: string | undefined, rule?: FieldRule): string {
  const bounds = rule?.min !== undefined && rule.max !== undefined ? `From ${rule.min} to ${rule.max}.` : '';
  return [help, bounds].filter(Boolean).join(' ');
}

// What an input holds, as the API's type: a number input's text is a number, an emptied text field is null.
function parsed(previous: unknown, text: string): Value {
  if (typeof previous === 'number') return text === '' ? null : Number(text);
  return text === '' && previous === null ? null : text;
}

// What is sent: a list without its blank items (an added input left empty).
function sent(draft: Record<string, Value>): Record<string, Value> {
  return Object.fromEntries(Object.entries(draft).map(([key, value]) => [key, isList(value) ? value.map((item) => item.trim()).filter(Boolean) : value]));
}

/**
 * A form over named values (cache or SSL settings, a settings group): a select for a key with fixed
 * values (`fields`, from the API's schema or settings definitions), a checkbox for a boolean, a
 * number input for a number, a list editor for a list of texts (nameserver hostnames, anycast
 * addresses), text otherwise. Each is labelled in words with one line of help (field-labels.ts, by
 * `fieldOf(key)`). Saving sends the changed values only; the API's refusal is shown next to the
 * input it names (`fieldOf(key)`, e.g. "cache.enabled"), others under the form, and is cleared
 * when that input changes.
 */
export function ValuesForm({ label, values, skip = [], fieldOf = (key) => key, fields = {}, onSave }: { label: string; values: Record<string, unknown>; skip?: string[]; fieldOf?: (key: string) => string; fields?: Record<string, FieldRule>; onSave: (changed: Record<string, Value>) => Promise<void> }) {
  const keys = Object.keys(values).filter((key) => !skip.includes(key) && (values[key] === null || typeof values[key] !== 'object' || isList(values[key])));
  const [draft, setDraft] = useState<Record<string, Value>>({});
  const [saved, setSaved] = useState(false);
  const current = (key: string) => (key in draft ? draft[key] : (values[key] as Value));
  const saving = useSubmit(async () => {
    await onSave(sent(draft));
    setDraft({});
  });
  const { failure } = saving;
  const submit = async (event: Event) => setSaved(await saving.submit(event));
  const idOf = (key: string) => `${label.replace(/\W+/g, '-')}-${key}-error`;
  return (
    <form class="values-form" onSubmit={submit} aria-label={label}>
      {keys.map((key) => {
        const rule = fields[key];
        const kind = inputOf(values[key], rule);
        const value = current(key);
        const words = labelOf(fieldOf(key), rule?.description);
        const set = (next: Value) => (setDraft({ ...draft, [key]: next }), setSaved(false), saving.changed(fieldOf(key)));
        const described = `${idOf(key)}-help ${idOf(key)}`;
        const help = (
          <span id={`${idOf(key)}-help`} class="help">
            {helpOf(words.help, rule)}
          </span>
        );
        if (kind === 'list') {
          return (
            <div key={key} class="field">
              <ListField label={words.label} items={value as string[]} errorId={idOf(key)} onChange={set} />
              {help}
              <FieldError id={idOf(key)} failure={failure} field={fieldOf(key)} />
            </div>
          );
        }
        return (
          <div key={key} class="value-field">
            <Field errorId={idOf(key)} failure={failure} field={fieldOf(key)} check={kind === 'checkbox'}>
              {kind === 'checkbox' ? <input type="checkbox" name={key} checked={value === true} onChange={(event) => set(event.currentTarget.checked)} aria-describedby={described} /> : null}
              {words.label}
              {kind === 'select' ? (
                <select name={key} value={String(value)} onChange={(event) => set(rule!.options!.find((option) => String(option) === event.currentTarget.value) ?? null)} aria-describedby={described}>
                  {rule!.options!.map((option) => (
                    <option key={option} value={String(option)}>
                      {choiceOf(fieldOf(key), option)}
                    </option>
                  ))}
                </select>
              ) : null}
              {kind === 'number' ? <input type="number" name={key} value={value === null ? '' : String(value)} onInput={(event) => set(parsed(values[key], event.currentTarget.value))} aria-describedby={described} /> : null}
              {kind === 'text' ? <input type="text" name={key} value={value === null ? '' : String(value)} onInput={(event) => set(parsed(values[key], event.currentTarget.value))} aria-describedby={described} /> : null}
            </Field>
            {help}
          </div>
        );
      })}
      <div class="actions">
        <button type="submit" disabled={Object.keys(draft).length === 0}>
          Save
        </button>
        {saved ? <span role="status">Saved.</span> : null}
      </div>
      <FormFailure failure={failure} fields={keys.map(fieldOf)} />
    </form>
  );
}

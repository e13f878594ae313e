import { useState } from 'preact/hooks';
import { ApiFailure } from './api.js';
import type { FieldRule } from './api-schemas.js';
import { type Body, valueAt, withValueAt } from './dotted-path.js';
import { FormFailure } from './field-error.js';
import { choiceOf } from './field-labels.js';
import { type Described, type ErrorAt, FieldRows } from './field-rows.js';
import { describedBy, FieldGroup, FormField } from './form-field.js';
import { MatchBuilder, showsMatchError } from './match-builder.js';
import { emptyValue, problemsOf, ruleAt, ruleLabel, sentBody, shownFields } from './rule-body.js';
import { RULE_FIELDS, SHARED_FIELDS } from './rule-fields.js';
import { useSubmit } from './use-submit.js';

type InputProps = { rule: FieldRule; value: unknown; onValue: (value: unknown) => void; described: Described; choices: string; empty: unknown };

function Select({ rule, value, onValue, described, choices }: InputProps) {
  const shown = value ?? rule.defaultValue;
  const optional = !rule.required && rule.defaultValue === undefined;
  return (
    <select {...described} value={shown === undefined ? '' : String(shown)} onChange={(event) => onValue(rule.options!.find((option) => String(option) === event.currentTarget.value))}>
      {optional ? <option value="">not set</option> : null}
      {rule.options!.map((option) => (
        <option key={option} value={String(option)}>
          {choiceOf(choices, option)}
        </option>
      ))}
    </select>
  );
}

function NumberInput({ rule, value, onValue, described, empty }: InputProps) {
  const placeholder = typeof rule.defaultValue === 'number' ? String(rule.defaultValue) : undefined;
  return <input {...described} type="number" inputMode="numeric" min={rule.min} max={rule.max} placeholder={placeholder} value={value == null ? '' : String(value)} onInput={(event) => onValue(event.currentTarget.value === '' ? empty : Number(event.currentTarget.value))} />;
}

function TextInput({ value, onValue, described, empty }: InputProps) {
  return <input {...described} type="text" value={value == null ? '' : String(value)} onInput={(event) => onValue(event.currentTarget.value === '' ? empty : event.currentTarget.value)} />;
}

function Checkbox({ rule, value, onValue, described }: InputProps) {
  return <input {...described} type="checkbox" checked={(value ?? rule.defaultValue) === true} onChange={(event) => onValue(event.currentTarget.checked ? true : rule.defaultValue === undefined ? undefined : false)} />;
}

// The input of a single value, by the schema's rule: fixed values as a select, then by type.
function inputOf(rule: FieldRule) {
  if (rule.options) return Select;
  if (rule.type === 'boolean') return Checkbox;
  if (rule.type === 'integer') return NumberInput;
  return TextInput;
}

type FieldProps = { kind: string; path: string; formId: string; draft: Body; original?: Body; set: (path: string, value: unknown) => void; errorAt: ErrorAt };

/** One field of the rule, drawn from its schema rule, labelled in words, with its help and its error. */
function RuleInput({ kind, path, formId, draft, original, set, errorAt }: FieldProps) {
  const schemaRule = ruleAt(kind, path);
  // A field inside an optional object (`cache_key.query_strings.mode`) can be emptied: that leaves the object out.
  const rule = { ...schemaRule, required: schemaRule.required && !path.includes('.') };
  const { label, help, item = 'Entry' } = ruleLabel(kind, path);
  const id = `${formId}-${path.replace(/\./g, '-')}`;
  const failure = errorAt(path);
  const value = valueAt(draft, path);
  const onValue = (next: unknown) => set(path, next);
  if (rule.type === 'array') {
    const entries = Array.isArray(value) ? (value as (string | number)[]) : [];
    const listEmpty = rule.defaultValue === undefined ? undefined : [];
    if (rule.items?.options) {
      const options = rule.items.options;
      const toggle = (option: string | number, on: boolean) => {
        const next = options.filter((candidate) => (candidate === option ? on : entries.includes(candidate)));
        onValue(next.length ? next : listEmpty);
      };
      return (
        <FieldGroup id={id} legend={label} help={help} failure={errorAt(path, true)} field={path}>
          <div class="choices">
            {options.map((option) => (
              <label class="check" key={option}>
                <input type="checkbox" checked={entries.includes(option)} onChange={(event) => toggle(option, event.currentTarget.checked)} />
                {choiceOf(`${kind}.${path}`, option)}
              </label>
            ))}
          </div>
        </FieldGroup>
      );
    }
    const row = (text: string, setText: (next: string) => void, name: string, described: Described) => <input {...described} type="text" aria-label={name} value={text} onInput={(event) => setText(event.currentTarget.value)} />;
    return <FieldRows<string> id={id} field={path} legend={label} help={help} item={item} rows={entries as string[]} fresh="" onRows={(next) => onValue(next.length ? next : listEmpty)} errorAt={errorAt} row={row} />;
  }
  const Input = inputOf(rule);
  return (
    <FormField id={id} label={label} help={help} failure={failure} field={path} check={Input === Checkbox}>
      <Input rule={rule} value={value} onValue={onValue} described={describedBy(id, failure !== undefined)} choices={`${kind}.${path}`} empty={emptyValue(kind, path, original)} />
    </FormField>
  );
}

// The objects the kind's fields sit in (`settings`, `cache_key.query_strings`): their errors show on the kind's fieldset.
function objectPaths(kind: string): string[] {
  const parents = RULE_FIELDS[kind].flatMap(({ path }) => path.split('.').slice(0, -1).map((_, index, parts) => parts.slice(0, index + 1).join('.')));
  return [...new Set(parents)];
}

// True for the field at `path` or inside it (`match.paths.0.value` is within `match`).
const within = (field: string, path: string) => field === path || field.startsWith(`${path}.`);

function without(problems: Record<string, string>, path: string): Record<string, string> {
  return Object.fromEntries(Object.entries(problems).filter(([field]) => !within(field, path)));
}

type FormProps = { kind: string; label: string; submitLabel: string; draft: Body; original?: Body; onDraft: (draft: Body) => void; onSave: (body: Body) => Promise<void> };

/**
 * A rule of one kind as a form (docs/dashboard.md, "Rule forms"): name, state and priority, the match
 * builder, then the kind's own fields. Each field is checked against the kind's JSON Schema before
 * anything is sent, and the API's refusal is shown at the field it names; a refusal no field
 * shows is shown under the form. `draft` is the rule's JSON, shared with the advanced JSON view.
 */
export function RuleForm({ kind, label, submitLabel, draft, original, onDraft, onSave }: FormProps) {
  const [problems, setProblems] = useState<Record<string, string>>({});
  // Fields changed since the last submit: the API's refusal of their old value no longer describes them.
  const [edited, setEdited] = useState<string[]>([]);
  const { failure, busy, submit } = useSubmit(async () => {
    setEdited([]);
    const body = sentBody(kind, draft, original);
    const found = problemsOf(kind, body);
    setProblems(found);
    const messages = Object.values(found);
    if (messages.length) throw new ApiFailure(0, 'Not sent: fix the marked fields', undefined, messages.join('; '));
    await onSave(body);
  });
  const refused = failure?.field !== undefined && !edited.some((path) => within(failure.field!, path)) ? failure : undefined;
  const errorAt: ErrorAt = (field, inside = false) => {
    const at = (key: string) => key === field || (inside && within(key, field));
    const problem = Object.entries(problems).find(([key]) => at(key));
    if (problem) return new ApiFailure(0, 'invalid value', field, problem[1]);
    return refused && at(refused.field!) ? new ApiFailure(refused.status, refused.error, field, refused.detail) : undefined;
  };
  const set = (path: string, value: unknown) => {
    onDraft(withValueAt(draft, path, value));
    setProblems(without(problems, path));
    setEdited([...edited, path]);
  };
  const formId = `rule-${original ? 'edit' : 'new'}`;
  const shown = shownFields(kind, draft);
  const objects = objectPaths(kind);
  const objectError = objects.find((path) => errorAt(path));
  const match = draft.match !== null && typeof draft.match === 'object' && !Array.isArray(draft.match) ? (draft.match as Body) : {};
  const shownAt = (field: string) => shown.some(({ path }) => field === path || (ruleAt(kind, path).type === 'array' && field.startsWith(`${path}.`))) || objects.includes(field) || showsMatchError(match, field);
  const input = (path: string) => <RuleInput key={path} kind={kind} path={path} formId={formId} draft={draft} original={original} set={set} errorAt={errorAt} />;
  return (
    <form class="rule-form" noValidate aria-label={label} onSubmit={submit}>
      {shown.filter((field) => SHARED_FIELDS.includes(field)).map(({ path }) => input(path))}
      <MatchBuilder id={`${formId}-match`} kind={kind} match={match} onMatch={(next) => set('match', next)} errorAt={errorAt} />
      <FieldGroup id={`${formId}-does`} legend="What the rule does" failure={objectError ? errorAt(objectError) : undefined} field={objectError ?? ''}>
        {shown.filter((field) => !SHARED_FIELDS.includes(field)).map(({ path }) => input(path))}
      </FieldGroup>
      <div class="actions">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
      </div>
      <FormFailure failure={failure} fields={failure?.field && shownAt(failure.field) ? [failure.field] : []} />
    </form>
  );
}

import { type FieldRule, fieldRule, RULE_SCHEMAS } from './api-schemas.js';
import { type Body, valueAt, withValueAt } from './dotted-path.js';
import { fieldProblem } from './field-check.js';
import { type FieldLabel, labelOf } from './field-labels.js';
import { matchRowValues } from './match-builder.js';
import { type Current, RULE_FIELDS, type RuleField, SHARED_FIELDS } from './rule-fields.js';

/** The schema's rule of a field of the kind (every field RULE_FIELDS names is in its schema). */
export function ruleAt(kind: string, path: string): FieldRule {
  const rule = fieldRule(RULE_SCHEMAS[kind], path);
  if (!rule) throw new Error(`${kind} has no field ${path}`);
  return rule;
}

/** The field's label and help: the kind's own words, else those every rule shares. */
export function ruleLabel(kind: string, path: string): FieldLabel {
  return labelOf([`${kind}.${path}`, `rule.${path}`, path], ruleAt(kind, path).description);
}

/** A value of the rule, or the schema's default for it. */
export function currentOf(kind: string, body: Body): Current {
  return (path) => valueAt(body, path) ?? fieldRule(RULE_SCHEMAS[kind], path)?.defaultValue;
}

/** The fields the form shows for this rule: the shared ones, then the kind's own that apply to its values. */
export function shownFields(kind: string, body: Body): RuleField[] {
  const current = currentOf(kind, body);
  return [...SHARED_FIELDS, ...RULE_FIELDS[kind]].filter((field) => !field.when || field.when(current));
}

/**
 * What an emptied field holds: null when the rule being edited has a value there that only null
 * clears (a PATCH keeps the fields it is not sent), else nothing (the field is left out).
 */
export function emptyValue(kind: string, path: string, original?: Body): unknown {
  return ruleAt(kind, path).nullable && original && valueAt(original, path) != null ? null : undefined;
}

/** The rule to send: the draft without the fields its own values make not apply (`key_header` unless key is header). */
export function sentBody(kind: string, draft: Body, original?: Body): Body {
  const current = currentOf(kind, draft);
  return RULE_FIELDS[kind].filter((field) => field.when && !field.when(current)).reduce((body, field) => withValueAt(body, field.path, emptyValue(kind, field.path, original)), draft);
}

// A required field inside an optional object (`settings.forwarding_url.url`) is required only when that object is there.
function requiredHere(rule: FieldRule, body: Body, path: string): FieldRule {
  const parent = path.includes('.') ? valueAt(body, path.slice(0, path.lastIndexOf('.'))) : body;
  return { ...rule, required: rule.required && parent !== undefined };
}

/** Each shown field's problem before sending, by field path (a list's entries as `path.2`), in words naming the field. */
export function problemsOf(kind: string, body: Body): Record<string, string> {
  const problems: [string, string | undefined][] = [];
  for (const { path } of shownFields(kind, body)) {
    const rule = ruleAt(kind, path);
    const { label, item = 'Entry' } = ruleLabel(kind, path);
    const value = valueAt(body, path);
    problems.push([path, fieldProblem(label, requiredHere(rule, body, path), value)]);
    if (rule.items && Array.isArray(value)) value.forEach((entry, index) => problems.push([`${path}.${index}`, fieldProblem(`${item} ${index + 1}`, rule.items!, entry)]));
  }
  for (const [field, words] of matchRowValues((body.match ?? {}) as Body)) problems.push([field, fieldProblem(words, ruleAt(kind, field), valueAt(body, field))]);
  return Object.fromEntries(problems.filter((entry): entry is [string, string] => entry[1] !== undefined));
}

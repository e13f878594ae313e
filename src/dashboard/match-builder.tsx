import { fieldRule, RULE_SCHEMAS } from './api-schemas.js';
import { type Body, withValueAt } from './dotted-path.js';
import { choiceOf, labelOf } from './field-labels.js';
import { type Described, type ErrorAt, FieldRows, type Row } from './field-rows.js';
import { FieldGroup } from './form-field.js';

type Pattern = { kind: string; value: string; case_sensitive?: boolean };
type Named = { name: string; present?: boolean; pattern?: Pattern; negate?: boolean };
type MatchProps = { id: string; kind: string; match: Body; onMatch: (match: Body) => void; errorAt: ErrorAt };

const PATTERN_KINDS: Record<string, string> = { exact: 'is exactly', prefix: 'starts with', wildcard: 'wildcard (* is any text)', regex: 'regular expression (RE2)' };
const CONDITIONS: Record<string, string> = { present: 'is present', absent: 'is absent', matches: 'matches' };

// The lists of a match: the word of one row, and what a new row holds.
const PATTERN_LISTS = [
  { key: 'hosts', item: 'Host', fresh: { kind: 'exact', value: '' }, caseOption: false },
  { key: 'paths', item: 'Path', fresh: { kind: 'prefix', value: '' }, caseOption: true },
];
const TEXT_LISTS = [
  { key: 'countries', item: 'Country' },
  { key: 'not_countries', item: 'Excluded country' },
  { key: 'ips', item: 'IP or CIDR' },
  { key: 'not_ips', item: 'Excluded IP or CIDR' },
];
const NAMED_LISTS = [
  { key: 'headers', item: 'Header condition' },
  { key: 'query', item: 'Query condition' },
  { key: 'cookies', item: 'Cookie condition' },
];
const COUNTRY_LISTS = new Set(['countries', 'not_countries']);

// A list of the match (JSON from the advanced view may hold anything there: what is not a list shows as none).
const rowsOf = <T,>(match: Body, key: string): T[] => (Array.isArray(match[key]) ? (match[key] as T[]) : []);

function Options({ choices }: { choices: Record<string, string> }) {
  return (
    <>
      {Object.entries(choices).map(([value, words]) => (
        <option key={value} value={value}>
          {words}
        </option>
      ))}
    </>
  );
}

/** One list of the match as rows; an emptied list leaves the match. */
function Rows<T>({ list, item, fresh, props, row }: { list: string; item: string; fresh: T; props: MatchProps; row: Row<T> }) {
  const field = `match.${list}`;
  const { label, help } = labelOf(field);
  const onRows = (next: T[]) => props.onMatch(withValueAt(props.match, list, next.length ? next : undefined));
  return <FieldRows id={`${props.id}-${list}`} field={field} legend={label} help={help} item={item} rows={rowsOf<T>(props.match, list)} fresh={fresh} onRows={onRows} errorAt={props.errorAt} row={row} />;
}

function CaseOption({ name, on, set }: { name: string; on: boolean; set: (on: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={on} onChange={(event) => set(event.currentTarget.checked)} />
      <span class="visually-hidden">{name} </span>case-sensitive
    </label>
  );
}

function PatternInputs({ pattern, set, name, described, caseOption }: { pattern: Pattern; set: (next: Pattern) => void; name: string; described: Described; caseOption: boolean }) {
  return (
    <>
      <select aria-label={`${name}: how it matches`} value={pattern.kind} onChange={(event) => set({ ...pattern, kind: event.currentTarget.value })} aria-describedby={described['aria-describedby']}>
        <Options choices={PATTERN_KINDS} />
      </select>
      <input {...described} type="text" aria-label={name} value={pattern.value} onInput={(event) => set({ ...pattern, value: event.currentTarget.value })} />
      {caseOption ? <CaseOption name={name} on={pattern.case_sensitive === true} set={(on) => set(withValueAt(pattern, 'case_sensitive', on || undefined) as Pattern)} /> : null}
    </>
  );
}

function conditionOf(named: Named): string {
  if (named.pattern) return 'matches';
  return named.present === false ? 'absent' : 'present';
}

function withCondition(named: Named, condition: string): Named {
  const { present: _present, pattern, ...rest } = named;
  if (condition === 'absent') return { ...rest, present: false };
  if (condition === 'matches') return { ...rest, pattern: pattern ?? { kind: 'exact', value: '' } };
  return rest;
}

function NamedInputs({ named, set, name, described }: { named: Named; set: (next: Named) => void; name: string; described: Described }) {
  return (
    <>
      <input {...described} type="text" aria-label={`${name} name`} value={named.name} onInput={(event) => set({ ...named, name: event.currentTarget.value })} />
      <select aria-label={`${name}: holds when`} value={conditionOf(named)} onChange={(event) => set(withCondition(named, event.currentTarget.value))} aria-describedby={described['aria-describedby']}>
        <Options choices={CONDITIONS} />
      </select>
      {named.pattern ? <PatternInputs pattern={named.pattern} set={(pattern) => set({ ...named, pattern })} name={`${name} value`} described={{ ...described, id: `${described.id}-value` }} caseOption={false} /> : null}
      <label class="check">
        <input type="checkbox" checked={named.negate === true} onChange={(event) => set(withValueAt(named, 'negate', event.currentTarget.checked || undefined) as Named)} />
        <span class="visually-hidden">{name} </span>negated
      </label>
    </>
  );
}

function Methods({ props }: { props: MatchProps }) {
  const field = 'match.methods';
  const id = `${props.id}-methods`;
  const methods = rowsOf<string>(props.match, 'methods');
  const all = (fieldRule(RULE_SCHEMAS[props.kind], field)?.items?.options ?? []).map(String);
  const { label, help } = labelOf(field);
  const toggle = (method: string, on: boolean) => {
    const next = all.filter((candidate) => (candidate === method ? on : methods.includes(candidate)));
    props.onMatch(withValueAt(props.match, 'methods', next.length ? next : undefined));
  };
  return (
    <FieldGroup id={id} legend={label} help={help} failure={props.errorAt(field, true)} field={field}>
      <div class="choices">
        {all.map((method) => (
          <label class="check" key={method}>
            <input type="checkbox" checked={methods.includes(method)} onChange={(event) => toggle(method, event.currentTarget.checked)} />
            {choiceOf(field, method)}
          </label>
        ))}
      </div>
    </FieldGroup>
  );
}

/**
 * The rule's match as a form (docs/rules.md, "The match object"): rows of host and path patterns,
 * methods to check, rows of countries and IPs (and of those excluded), rows of header, query and
 * cookie conditions. Every condition listed must hold; an empty match matches every request.
 */
export function MatchBuilder(props: MatchProps) {
  return (
    <fieldset>
      <legend>Which requests (match)</legend>
      {PATTERN_LISTS.map(({ key, item, fresh, caseOption }) => (
        <Rows<Pattern> key={key} list={key} item={item} fresh={fresh} props={props} row={(pattern, set, name, described) => <PatternInputs pattern={pattern} set={set} name={name} described={described} caseOption={caseOption} />} />
      ))}
      <Methods props={props} />
      {TEXT_LISTS.map(({ key, item }) => (
        <Rows<string>
          key={key}
          list={key}
          item={item}
          fresh=""
          props={props}
          row={(text, set, name, described) => <input {...described} type="text" aria-label={name} value={text} onInput={(event) => set(COUNTRY_LISTS.has(key) ? event.currentTarget.value.toUpperCase() : event.currentTarget.value)} />}
        />
      ))}
      {NAMED_LISTS.map(({ key, item }) => (
        <Rows<Named> key={key} list={key} item={item} fresh={{ name: '' }} props={props} row={(named, set, name, described) => <NamedInputs named={named} set={set} name={name} described={described} />} />
      ))}
    </fieldset>
  );
}

/** The values in the match's rows that are checked before sending, each with the words naming it in an error: `[field, words]`. */
export function matchRowValues(match: Body): [string, string][] {
  return [
    ...PATTERN_LISTS.flatMap(({ key, item }) => rowsOf(match, key).map((_, index): [string, string] => [`match.${key}.${index}.value`, `${item} ${index + 1}`])),
    ...TEXT_LISTS.flatMap(({ key, item }) => rowsOf(match, key).map((_, index): [string, string] => [`match.${key}.${index}`, `${item} ${index + 1}`])),
    ...NAMED_LISTS.flatMap(({ key, item }) =>
      rowsOf<Named>(match, key).flatMap((named, index): [string, string][] => [
        [`match.${key}.${index}.name`, `${item} ${index + 1} name`],
        ...(named.pattern ? [[`match.${key}.${index}.pattern.value`, `${item} ${index + 1} value`] as [string, string]] : []),
      ]),
    ),
  ];
}

/** True when the form shows an error at `field` inside the match (a list, or a row it has). */
export function showsMatchError(match: Body, field: string): boolean {
  const [head, list, index] = field.split('.');
  if (head !== 'match') return false;
  if (list === 'methods') return true;
  if (![...PATTERN_LISTS, ...TEXT_LISTS, ...NAMED_LISTS].some(({ key }) => key === list)) return false;
  return index === undefined || Number(index) < rowsOf(match, list).length;
}

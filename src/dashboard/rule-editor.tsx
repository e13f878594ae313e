import { useState } from 'preact/hooks';
import { api } from './api.js';
import type { Body } from './dotted-path.js';
import { JsonEditor } from './json-editor.js';
import { sentBody } from './rule-body.js';
import { RuleForm } from './rule-form.js';

export type Rule = { id: string; name: string; enabled: boolean; priority: number; match: unknown } & Record<string, unknown>;

// Fields the API sets: left out of what the editor shows and sends.
const READ_ONLY = new Set(['id', 'domain_id', 'created_at', 'updated_at', 'legacy']);

/** A rule as the JSON its kind's requests take: without the fields the API sets, and without nulls. */
export function ruleBody(rule: Rule): Body {
  return Object.fromEntries(Object.entries(rule).filter(([key, value]) => !READ_ONLY.has(key) && value !== null));
}

function parsedRule(text: string): Body {
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('a rule is a JSON object');
  return value as Body;
}

/**
 * A new rule (POSTed) or an edited one (PATCHed) as its kind's form, with the same rule as the
 * API's JSON behind "Advanced (JSON)": each view opens with what the other holds, so a change made
 * in either is kept. JSON that does not parse stays in the JSON view, with the parser's words.
 */
export function RuleEditor({ domainId, kind, rule, onDone }: { domainId: string; kind: string; rule?: Rule; onDone: () => void }) {
  const original = rule ? ruleBody(rule) : undefined;
  const [draft, setDraft] = useState<Body>(original ?? { name: '', match: {} });
  // While the JSON view is open: the rule it opened with, and its text as edited.
  const [json, setJson] = useState<{ opened: Body; text: string }>();
  const [jsonProblem, setJsonProblem] = useState<string>();
  const save = async (body: unknown) => {
    if (rule) await api('PATCH', `/api/v1/domains/${domainId}/${kind}/${rule.id}`, body);
    else await api('POST', `/api/v1/domains/${domainId}/${kind}`, body);
    onDone();
  };
  const toggle = () => {
    if (json === undefined) {
      const opened = sentBody(kind, draft, original);
      return setJson({ opened, text: JSON.stringify(opened, null, 2) });
    }
    try {
      setDraft(parsedRule(json.text));
      setJson(undefined);
      setJsonProblem(undefined);
    } catch (error) {
      setJsonProblem(`The form cannot show this JSON: ${(error as Error).message}`);
    }
  };
  const label = rule ? `Rule ${rule.name}` : 'New rule';
  return (
    <div>
      <div class="view-toggle">
        <button type="button" class="secondary" aria-pressed={json !== undefined} aria-describedby="rule-view-problem" onClick={toggle}>
          Advanced (JSON)
        </button>
        <span id="rule-view-problem" class="field-error" role={jsonProblem ? 'alert' : undefined}>
          {jsonProblem ?? ''}
        </span>
      </div>
      {json === undefined ? (
        <RuleForm kind={kind} label={label} submitLabel={rule ? 'Save rule' : 'Add rule'} draft={draft} original={original} onDraft={setDraft} onSave={save} />
      ) : (
        <JsonEditor label={`${label} as JSON`} initial={json.opened} submitLabel={rule ? 'Save rule' : 'Add rule'} onSave={save} onText={(text) => (setJson({ ...json, text }), setJsonProblem(undefined))} />
      )}
    </div>
  );
}

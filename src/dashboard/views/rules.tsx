import { useState } from 'preact/hooks';
import type { ApiFailure } from '../api.js';
import { Badge, DataTable, Empty, Failure, FocusedPanel, Loading, PAGE_SIZE, Pager } from '../components.js';
import type { Owner } from '../ownership.js';
import { deleteAfterAsking } from '../delete-item.js';
import { SourceCell, YamlSnippet } from '../item-source.js';
import { type Rule, RuleEditor, ruleBody } from '../rule-editor.js';
import { useApi } from '../use-api.js';
import type { Domain } from './domains.js';

const KINDS = [
  { path: 'redirects', label: 'Redirects' },
  { path: 'rate-limits', label: 'Rate limits' },
  { path: 'waf-rules', label: 'WAF rules' },
  { path: 'headers', label: 'Header rules' },
  { path: 'ip-rules', label: 'IP rules' },
  { path: 'cache-rules', label: 'Cache rules' },
  { path: 'page-rules', label: 'Page rules' },
];
const SHARED = new Set(['id', 'domain_id', 'name', 'enabled', 'priority', 'match', 'created_at', 'updated_at', 'legacy']);

function summary(rule: Rule): string {
  return Object.entries(rule)
    .filter(([key, value]) => !SHARED.has(key) && value !== null && value !== undefined)
    .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(', ');
}

/** Every rule kind of the domain, one at a time: name, priority, match and the kind's own fields. */
export function RulesTab({ domain, owner, isNotInGit }: { domain: Domain; owner?: Owner; isNotInGit: (section: string, key: string) => boolean }) {
  const [kind, setKind] = useState(KINDS[0].path);
  const [offset, setOffset] = useState(0);
  const [yaml, setYaml] = useState<string>();
  const section = kind.replace(/-/g, '_');
  const rules = useApi<Rule[]>(`/api/v1/domains/${domain.id}/${kind}?limit=${PAGE_SIZE}&offset=${offset}`);
  const [editing, setEditing] = useState<Rule | 'new'>();
  const [failure, setFailure] = useState<ApiFailure>();
  const done = () => (setEditing(undefined), rules.reload());
  // Git owns the domain's rules, except those its last plan kept though the file does not list them (by name, per kind).
  const ownedByGit = (rule: Rule) => owner !== undefined && !isNotInGit(section, rule.name);
  const remove = (rule: Rule) => deleteAfterAsking(`Delete rule ${rule.name}?`, `/api/v1/domains/${domain.id}/${kind}/${rule.id}`, setFailure, rules.reload);
  return (
    <div>
      <h2>Rules</h2>
      <label>
        Kind
        <select name="kind" value={kind} onChange={(event) => (setKind(event.currentTarget.value), setEditing(undefined), setOffset(0), setYaml(undefined))}>
          {KINDS.map((item) => (
            <option key={item.path} value={item.path}>
              {item.label}
            </option>
          ))}
        </select>
      </label>
      {owner ? (
        <p class="muted">
          Rules that <code>{owner.file}</code> lists are read-only here: change them in a pull request.
        </p>
      ) : null}
      {owner ? null : (
        <button type="button" class="secondary" onClick={() => setEditing('new')}>
          New rule
        </button>
      )}
      <Failure failure={rules.failure ?? failure} />
      <Loading when={rules.loading && !rules.data} />
      {rules.data && rules.data.length === 0 ? <Empty>No rules of this kind.</Empty> : null}
      {rules.data?.length ? (
        <DataTable
          label={KINDS.find((item) => item.path === kind)?.label ?? 'Rules'}
          columns={['Name', 'Priority', 'State', { label: 'Match', wrap: true }, { label: 'Settings', wrap: true }, 'Source']}
          rows={rules.data}
          rowKey={(rule) => rule.id}
          cells={(rule) => [
            rule.name,
            rule.priority,
            <Badge tone={rule.enabled ? 'good' : 'neutral'}>{rule.enabled ? 'enabled' : 'disabled'}</Badge>,
            <code>{JSON.stringify(rule.match)}</code>,
            summary(rule),
            <SourceCell
              item={`rule ${rule.name}`}
              owner={owner}
              ownedByGit={ownedByGit(rule)}
              // JSON is YAML too: the rule as one flow mapping, ready for the file's list.
              onYaml={() => setYaml(`  - ${JSON.stringify(ruleBody(rule))}`)}
              onEdit={() => setEditing(rule)}
              onDelete={() => remove(rule)}
            />,
          ]}
        />
      ) : null}
      <Pager offset={offset} count={rules.data?.length ?? 0} onOffset={setOffset} />
      <YamlSnippet yaml={yaml} section={section} owner={owner} />
      {editing ? (
        <FocusedPanel label={editing === 'new' ? 'New rule' : `Edit rule ${editing.name}`}>
          <RuleEditor key={editing === 'new' ? `new-${kind}` : editing.id} domainId={domain.id} kind={kind} rule={editing === 'new' ? undefined : editing} onDone={done} />
          <button type="button" class="secondary" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
        </FocusedPanel>
      ) : null}
    </div>
  );
}

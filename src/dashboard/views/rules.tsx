import { useState } from 'preact/hooks';
import { Badge, DataTable, Empty, Failure, Loading } from '../components.js';
import type { Owner } from '../ownership.js';
import { useApi } from '../use-api.js';
import type { Domain } from './domains.js';

type Rule = { id: string; name: string; enabled: boolean; priority: number; match: unknown } & Record<string, unknown>;

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
export function RulesTab({ domain, owner }: { domain: Domain; owner?: Owner }) {
  const [kind, setKind] = useState(KINDS[0].path);
  const rules = useApi<Rule[]>(`/api/v1/domains/${domain.id}/${kind}?limit=500`);
  return (
    <div>
      <h2>Rules</h2>
      <label>
        Kind
        <select name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value)}>
          {KINDS.map((item) => (
            <option key={item.path} value={item.path}>
              {item.label}
            </option>
          ))}
        </select>
      </label>
      {owner ? (
        <p class="muted">
          Rules of this domain are read-only here: they live in <code>{owner.file}</code>.
        </p>
      ) : null}
      <Failure failure={rules.failure} />
      <Loading when={rules.loading && !rules.data} />
      {rules.data && rules.data.length === 0 ? <Empty>No rules of this kind.</Empty> : null}
      {rules.data?.length ? (
        <DataTable
          label={KINDS.find((item) => item.path === kind)?.label ?? 'Rules'}
          columns={['Name', 'Priority', 'State', { label: 'Match', wrap: true }, { label: 'Settings', wrap: true }]}
          rows={rules.data}
          rowKey={(rule) => rule.id}
          cells={(rule) => [rule.name, rule.priority, <Badge tone={rule.enabled ? 'good' : 'neutral'}>{rule.enabled ? 'enabled' : 'disabled'}</Badge>, <code>{JSON.stringify(rule.match)}</code>, summary(rule)]}
        />
      ) : null}
    </div>
  );
}

import { DataTable } from './components.js';

type FieldChange = { field: string; before: unknown; after: unknown };
/** A drifted item of a run: `before` is the live value, `after` git's (docs/gitops.md, the controller). */
export type Drift = { domain: string; resource: string; key: string; action?: string; fields: FieldChange[] };

function shown(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// What happened to the item, from what the plan would do to undo it.
const HAPPENED: Record<string, string> = { update: 'changed through the API', create: 'deleted through the API', delete: 'added through the API, not in git' };

// An item compared whole, when no field was recorded (one git lists but the live state lacks, or the reverse).
function rowsOf(item: Drift): FieldChange[] {
  if (item.fields.length) return item.fields;
  if (item.action === 'create') return [{ field: '(the item)', before: '(missing)', after: '(listed)' }];
  if (item.action === 'delete') return [{ field: '(the item)', before: '(present)', after: '(not listed)' }];
  return [];
}

/**
 * Each drifted item as a table of its differing fields, git's value beside the live one.
 * `liveLabel` names the live column (for reverted items: the value that was live before the revert).
 */
export function DriftTable({ title, items, liveLabel = 'Live' }: { title: string; items: Drift[]; liveLabel?: string }) {
  if (!items.length) return null;
  return (
    <>
      <h3>{title}</h3>
      {items.map((item) => {
        const label = `${item.domain} ${item.resource} ${item.key}`;
        return (
          <div class="drift" key={label}>
            <p>
              {item.domain} · {item.resource.replace(/_/g, ' ')} <code>{item.key}</code>
              {item.action && HAPPENED[item.action] ? <span class="muted"> ({HAPPENED[item.action]})</span> : null}
            </p>
            <DataTable
              label={`${title}: ${label}`}
              columns={['Field', { label: 'In git', wrap: true }, { label: liveLabel, wrap: true }]}
              rows={rowsOf(item)}
              rowKey={(row) => row.field}
              cells={(row) => [<code>{row.field}</code>, <code>{shown(row.after)}</code>, <code>{shown(row.before)}</code>]}
            />
          </div>
        );
      })}
    </>
  );
}

import type { Change, DomainPlan, Plan } from './plan.js';

const SYMBOL = { create: '+', update: '~', delete: '-' } as const;

/** GitHub refuses a comment over 65,536 characters; the Markdown plan stays under it with room to spare. */
export const MARKDOWN_LIMIT = 65536;
const MARKDOWN_BUDGET = MARKDOWN_LIMIT - 2048;
const CELL_LIMIT = 300;

function value(input: unknown): string {
  return input === undefined || input === null ? '(none)' : JSON.stringify(input);
}

/** `creates=3 updates=1 deletes=0 unchanged=41` */
export function summaryLine(plan: Plan): string {
  const { creates, updates, deletes, unchanged } = plan.counts;
  return `creates=${creates} updates=${updates} deletes=${deletes} unchanged=${unchanged}`;
}

function changeLines(change: Change): string[] {
  const head = `  ${SYMBOL[change.action]} ${change.resource} ${change.key}${change.was ? ` (was ${change.was})` : ''}`;
  if (change.action === 'delete') return [head];
  return [head, ...change.fields.map((field) => (change.action === 'create' ? `      ${field.field}: ${value(field.after)}` : `      ${field.field}: ${value(field.before)} → ${value(field.after)}`))];
}

function domainHeading(plan: DomainPlan): string {
  const notes = { create: 'new domain', update: '', unchanged: 'no changes', orphaned: 'orphaned: its file is gone, left alone', delete: 'file removed: the domain will be deleted' };
  return `${plan.domain}${notes[plan.action] ? ` (${notes[plan.action]})` : ''}`;
}

function unmanagedLines(plan: DomainPlan): string[] {
  return plan.unmanaged.map((item) => `  = ${item.resource} ${item.key} (not in git; kept because prune is false)`);
}

function shown(domain: DomainPlan): boolean {
  return domain.action !== 'unchanged' || domain.unmanaged.length > 0;
}

/** The plan as human text: per domain, per resource, create/update/delete with field-level before → after. */
export function planText(plan: Plan, safety?: string): string {
  const lines: string[] = [];
  if (plan.settings.length) lines.push('settings', ...plan.settings.flatMap(changeLines), '');
  for (const domain of plan.domains.filter(shown)) lines.push(domainHeading(domain), ...domain.changes.flatMap(changeLines), ...unmanagedLines(domain), '');
  if (!plan.settings.length && !plan.domains.some((domain) => domain.changes.length)) lines.push('no changes');
  lines.push(summaryLine(plan));
  if (safety) lines.push('', `warning: ${safety}`);
  return `${lines.join('\n')}\n`;
}

/** The plan as one JSON-ready object (secrets appear only as "(secret)"; `desired` bodies are left out). */
export function planObject(plan: Plan, safety?: string): Record<string, unknown> {
  const strip = ({ desired: _desired, ...change }: Change) => change;
  return {
    counts: plan.counts,
    safety: safety ?? null,
    settings: plan.settings.map(strip),
    domains: plan.domains.map((domain) => ({ ...domain, changes: domain.changes.map(strip) })),
  };
}

/** The plan as one JSON document. */
export function planJson(plan: Plan, safety?: string): string {
  return `${JSON.stringify(planObject(plan, safety), null, 2)}\n`;
}

// HTML's special characters as entities: a value holding `<b>` or `</details>` is shown, never rendered.
export function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (char) => `&#${char.charCodeAt(0)};`);
}

// Text inside a table cell: HTML-escaped, then `|` (which would start a new cell, code spans
// included) and the characters Markdown would read as emphasis, code or links backslash-escaped,
// on one line.
export function markdownText(text: string): string {
  return escapeHtml(text.replace(/\s*\n\s*/g, ' ')).replace(/[\\`*_[\]~|]/g, (char) => `\\${char}`);
}

function cell(input: unknown): string {
  const text = value(input);
  return markdownText(text.length > CELL_LIMIT ? `${text.slice(0, CELL_LIMIT)}…` : text);
}

// An item's key in monospace: <code> rather than a code span, whose content Markdown would not unescape.
function itemCell(key: string): string {
  return `<code>${markdownText(key)}</code>`;
}

function changeRows(change: Change): string[] {
  const item = itemCell(change.key);
  const resource = markdownText(change.resource);
  if (change.fields.length === 0 || change.action === 'delete') return [`| ${SYMBOL[change.action]} | ${resource} | ${item} | | | |`];
  return change.fields.map((field) => `| ${SYMBOL[change.action]} | ${resource} | ${item} | ${markdownText(field.field)} | ${change.action === 'create' ? '' : cell(field.before)} | ${cell(field.after)} |`);
}

function countsText(domain: { counts: Plan['counts'] }): string {
  return `${domain.counts.creates} to create, ${domain.counts.updates} to update, ${domain.counts.deletes} to delete`;
}

function detailsOf(heading: string, summary: string, changes: Change[], unmanaged: DomainPlan['unmanaged']): string {
  const rows = changes.flatMap(changeRows);
  const kept = unmanaged.map((item) => `| = | ${markdownText(item.resource)} | ${itemCell(item.key)} | not in git, kept (prune: false) | | |`);
  return [`<details><summary><b>${escapeHtml(heading)}</b>: ${summary}</summary>`, '', '| | resource | item | field | before | after |', '|---|---|---|---|---|---|', ...rows, ...kept, '', '</details>', ''].join('\n');
}

/**
 * The plan as Markdown for a pull-request comment: the counts, the safety warning, a summary
 * table of the domains that change, then each one's changes folded in <details>. It stays under
 * GitHub's comment limit: what does not fit is cut with a note pointing to the full JSON plan.
 */
export function planMarkdown(plan: Plan, safety?: string): string {
  const changing = plan.domains.filter(shown);
  const head = ['### CDN plan', '', `\`${summaryLine(plan)}\``, ''];
  if (safety) head.push(`> [!WARNING]`, `> ${escapeHtml(safety)}`, '');
  if (!changing.length && !plan.settings.length) return `${[...head, 'No changes.'].join('\n')}\n`;
  const table = ['| domain | action | create | update | delete | not in git |', '|---|---|---:|---:|---:|---:|'];
  const sections = plan.settings.length ? [detailsOf('settings', `${plan.settings.length} group(s) to update`, plan.settings, [])] : [];
  for (const domain of changing) {
    table.push(`| ${markdownText(domain.domain)} | ${domain.action} | ${domain.counts.creates} | ${domain.counts.updates} | ${domain.counts.deletes} | ${domain.unmanaged.length} |`);
    sections.push(detailsOf(domainHeading(domain), countsText(domain), domain.changes, domain.unmanaged));
  }
  const parts = [...table.map((line) => `${line}\n`), '\n', ...sections];
  let output = `${head.join('\n')}\n`;
  const fits = parts.findIndex((part) => {
    if (output.length + part.length > MARKDOWN_BUDGET) return true;
    output += part;
    return false;
  });
  if (fits >= 0) output += `\n_The plan is too long for one comment; the rest is not shown. The full plan is in \`cdn plan --json\` (or the file written by \`--out\`)._\n`;
  return output;
}

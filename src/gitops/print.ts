import type { Change, DomainPlan, Plan } from './plan.js';

const SYMBOL = { create: '+', update: '~', delete: '-' } as const;

function value(input: unknown): string {
  return input === undefined ? '(unset)' : JSON.stringify(input);
}

/** `creates=3 updates=1 deletes=0 unchanged=41` */
export function summaryLine(plan: Plan): string {
  const { creates, updates, deletes, unchanged } = plan.counts;
  return `creates=${creates} updates=${updates} deletes=${deletes} unchanged=${unchanged}`;
}

function changeLines(change: Change): string[] {
  const head = `  ${SYMBOL[change.action]} ${change.resource} ${change.key}`;
  if (change.action === 'delete') return [head];
  return [head, ...change.fields.map((field) => (change.action === 'create' ? `      ${field.field}: ${value(field.after)}` : `      ${field.field}: ${value(field.before)} → ${value(field.after)}`))];
}

function domainHeading(plan: DomainPlan): string {
  const notes = { create: 'new domain', update: '', unchanged: 'no changes', orphaned: 'orphaned: its file is gone, left alone', delete: 'file removed: the domain will be deleted' };
  return `${plan.domain}${notes[plan.action] ? ` (${notes[plan.action]})` : ''}`;
}

/** The plan as human text: per domain, per resource, create/update/delete with field-level before → after. */
export function planText(plan: Plan): string {
  const lines: string[] = [];
  if (plan.settings.length) lines.push('settings', ...plan.settings.flatMap(changeLines), '');
  for (const domain of plan.domains) {
    if (domain.action === 'unchanged') continue;
    lines.push(domainHeading(domain), ...domain.changes.flatMap(changeLines), '');
  }
  if (!lines.length) lines.push('no changes');
  lines.push(summaryLine(plan));
  return `${lines.join('\n')}\n`;
}

/** The plan as JSON (secrets appear only as "(secret)"). */
export function planJson(plan: Plan): string {
  const shaped = {
    counts: plan.counts,
    settings: plan.settings.map(({ desired: _desired, ...change }) => change),
    domains: plan.domains.map((domain) => ({ ...domain, changes: domain.changes.map(({ desired: _desired, ...change }) => change) })),
  };
  return `${JSON.stringify(shaped, null, 2)}\n`;
}

function markdownCell(input: unknown): string {
  return value(input).replaceAll('|', '\\|');
}

/** The plan as Markdown to post on a pull request. */
export function planMarkdown(plan: Plan): string {
  const lines = ['### CDN plan', '', `\`${summaryLine(plan)}\``, ''];
  const sections = [...(plan.settings.length ? [{ heading: 'settings', changes: plan.settings }] : []), ...plan.domains.filter((domain) => domain.action !== 'unchanged').map((domain) => ({ heading: domainHeading(domain), changes: domain.changes }))];
  for (const section of sections) {
    lines.push(`#### ${section.heading}`, '', '| | resource | item | field | before | after |', '|---|---|---|---|---|---|');
    for (const change of section.changes) {
      if (change.fields.length === 0 || change.action === 'delete') lines.push(`| ${SYMBOL[change.action]} | ${change.resource} | \`${change.key}\` | | | |`);
      for (const field of change.action === 'delete' ? [] : change.fields) {
        lines.push(`| ${SYMBOL[change.action]} | ${change.resource} | \`${change.key}\` | ${field.field} | ${change.action === 'create' ? '' : markdownCell(field.before)} | ${markdownCell(field.after)} |`);
      }
    }
    lines.push('');
  }
  if (!sections.length) lines.push('No changes.');
  return `${lines.join('\n')}\n`;
}

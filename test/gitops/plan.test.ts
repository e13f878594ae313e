import { expect } from 'chai';
import { desiredModel, type DomainModel } from '../../src/gitops/model.js';
import { fieldChanges, planDomain, safetyProblem, combinePlans, type DomainPlan } from '../../src/gitops/plan.js';
import { marked, type Tokens } from 'marked';
import { MARKDOWN_LIMIT, planMarkdown } from '../../src/gitops/print.js';
import type { DomainSpec } from '../../src/gitops/spec.js';

const spec = (extra: Partial<DomainSpec> = {}): DomainSpec => ({
  domain: 'plan.example',
  policy: { prune: true, self_heal: false },
  records: [
    { type: 'A', name: 'www', content: '192.0.2.1', ttl: 300, proxied: true, routing_policy: 'simple', enabled: true },
    { type: 'MX', name: '@', content: '10 MX.example.net.', ttl: 300, proxied: false, routing_policy: 'simple', enabled: true },
  ],
  origins: [{ host: 'Origin.example.net', scheme: 'https' }],
  headers: [{ name: 'hsts', header_name: 'Strict-Transport-Security', value: 'max-age=1' }],
  ...extra,
});

// The live side as the API would show it after applying `spec()`: canonical names, content and defaults.
function liveOf(model: DomainModel): DomainModel {
  return { ...model, records: new Map([...model.records].map(([key, record]) => [key, { ...record, id: `id-${key}`, fqdn: 'x' }])) };
}

describe('planning (pure)', () => {
  it('plans a new domain as creates of the domain and every item', () => {
    const plan = planDomain(desiredModel(spec()), undefined, { prune: true });
    expect(plan.action).to.equal('create');
    expect(plan.changes.map((change) => `${change.action} ${change.resource}`)).to.deep.equal(['create domain', 'create origin', 'create record', 'create record', 'create headers']);
  });

  it('finds nothing to change when only the order of items differs and names and content are written differently', () => {
    const live = liveOf(desiredModel(spec()));
    const reordered = spec({
      records: [
        { type: 'MX', name: 'plan.example.', content: '10 mx.example.net', ttl: 300, proxied: false, routing_policy: 'simple', enabled: true },
        { type: 'A', name: 'WWW', content: '192.0.2.1', ttl: 300, proxied: true, routing_policy: 'simple', enabled: true },
      ],
    });
    const plan = planDomain(desiredModel(reordered), live, { prune: true });
    expect(plan.action).to.equal('unchanged');
    expect(plan.counts).to.include({ creates: 0, updates: 0, deletes: 0 });
  });

  it('plans a content change of a record as one update of that record', () => {
    const live = liveOf(desiredModel(spec()));
    const changed = spec({ records: [{ type: 'A', name: 'www', content: '192.0.2.2', ttl: 300, proxied: true, routing_policy: 'simple', enabled: true }] });
    const plan = planDomain(desiredModel(changed), live, { prune: true });
    expect(plan.changes.map((change) => `${change.action} ${change.key}${change.was ? ` was ${change.was}` : ''}`)).to.deep.equal(['update A www 192.0.2.2 was A www 192.0.2.1', 'delete MX @ 10 mx.example.net']);
    expect(plan.changes[0].fields).to.deep.equal([{ field: 'content', before: '192.0.2.1', after: '192.0.2.2' }]);
    expect(plan.counts).to.include({ creates: 0, updates: 1, deletes: 1 });
  });

  it('reports field-level before and after for updates', () => {
    const live = liveOf(desiredModel(spec()));
    const changed = spec({ records: [{ type: 'A', name: 'www', content: '192.0.2.1', ttl: 60, proxied: false, routing_policy: 'simple', enabled: true }] });
    const update = planDomain(desiredModel(changed), live, { prune: false }).changes[0];
    expect(update).to.deep.include({ action: 'update', resource: 'record', key: 'A www 192.0.2.1' });
    expect(update.fields).to.deep.equal([
      { field: 'ttl', before: 300, after: 60 },
      { field: 'proxied', before: true, after: false },
    ]);
  });

  it('keeps live items absent from the file when prune is off', () => {
    const live = liveOf(desiredModel(spec()));
    const plan = planDomain(desiredModel(spec({ records: [], headers: [] })), live, { prune: false });
    expect(plan.counts.deletes).to.equal(0);
    expect(plan.unmanaged).to.deep.equal([
      { resource: 'record', key: 'A www 192.0.2.1' },
      { resource: 'record', key: 'MX @ 10 mx.example.net' },
      { resource: 'headers', key: 'hsts' },
    ]);
  });

  it('compares secrets only as set or unset and never shows their value', () => {
    expect(fieldChanges({ origin_shield_secret: '${SECRET}' }, { origin_shield_secret: '(set)' })).to.deep.equal([]);
    expect(fieldChanges({ origin_shield_secret: '${SECRET}' }, {})).to.deep.equal([{ field: 'origin_shield_secret', before: null, after: '(secret)' }]);
  });

  it('gates plans that delete too large a share of live items, counting the domain and every kind of item', () => {
    const live = liveOf(desiredModel(spec()));
    const plan = combinePlans([], [planDomain(desiredModel(spec({ records: [], headers: [] })), live, { prune: true })]);
    expect(safetyProblem(plan, { maxPercent: 25, minLiveItems: 0 })).to.match(/deletes 3 of 5 live items \(60%\)/);
    expect(safetyProblem(plan, { maxPercent: 80, minLiveItems: 0 })).to.equal(undefined);
  });

  it('leaves plans covering fewer than min_live_items live items to change freely', () => {
    const live = liveOf(desiredModel(spec()));
    const plan = combinePlans([], [planDomain(desiredModel(spec({ records: [], headers: [] })), live, { prune: true })]);
    expect(safetyProblem(plan, { maxPercent: 25, minLiveItems: 10 })).to.equal(undefined);
    expect(safetyProblem(plan, { maxPercent: 25, minLiveItems: 5 })).to.match(/deletes 3 of 5/);
  });

  it('gates each domain too, like octoDNS each zone: one emptied domain among many is refused by name', () => {
    const domains = ['a', 'b', 'c', 'd'].map((name) => spec({ domain: `${name}.example` }));
    const plans = domains.map((domain) => planDomain(desiredModel(domain), liveOf(desiredModel(domain)), { prune: true }));
    const emptied = spec({ domain: 'b.example', records: [], headers: [] });
    plans[1] = planDomain(desiredModel(emptied), liveOf(desiredModel(spec({ domain: 'b.example' }))), { prune: true });
    const plan = combinePlans([], plans);
    expect(safetyProblem(plan, { maxPercent: 25, minLiveItems: 0 })).to.equal('the plan deletes 3 of 5 live items (60%) of b.example, more than max_delete_percent 25%');
    expect(safetyProblem(plan, { maxPercent: 25, minLiveItems: 6 })).to.equal(undefined);
  });

  it('leaves orphaned domains out of the count, and weighs a domain deleted whole in the whole plan only', () => {
    const live = (name: string) => liveOf(desiredModel(spec({ domain: `${name}.example` })));
    const kept = ['a', 'b', 'c'].map((name) => planDomain(desiredModel(spec({ domain: `${name}.example` })), live(name), { prune: true }));
    const orphaned: DomainPlan = { domain: 'o.example', action: 'orphaned', changes: [], counts: kept[0].counts, liveItems: 1000, unmanaged: [] };
    const emptied = planDomain(desiredModel(spec({ domain: 'e.example', records: [] })), live('e'), { prune: true });
    expect(safetyProblem(combinePlans([], [...kept, emptied, orphaned]), { maxPercent: 5, minLiveItems: 0 })).to.match(/^the plan deletes 2 of 20 live items \(10%\), more than/);
    const deleted: DomainPlan = { ...orphaned, domain: 'd.example', action: 'delete', liveItems: 5 };
    expect(safetyProblem(combinePlans([], [...kept, deleted]), { maxPercent: 30, minLiveItems: 0 })).to.equal(undefined);
    expect(safetyProblem(combinePlans([], [...kept, deleted]), { maxPercent: 20, minLiveItems: 0 })).to.match(/^the plan deletes 5 of 20 live items \(25%\), more than/);
  });

  it('never counts more deletes than live items, geo route sets included', () => {
    const geo = spec({ geo_routes: [{ record: 'www', routes: [{ scope: 'default', target: '192.0.2.9' }] }] });
    const live = liveOf(desiredModel(geo));
    const plan = combinePlans([], [planDomain(desiredModel(spec({ records: [], headers: [], origins: [] })), live, { prune: true })]);
    const [, deletes, total] = safetyProblem(plan, { maxPercent: 0, minLiveItems: 0 })!.match(/deletes (\d+) of (\d+)/)!.map(Number);
    expect(deletes).to.equal(5);
    expect(total).to.equal(6);
  });

  it('lists only the fields a file sets when it creates an item, and a new domain\'s settings as part of its creation', () => {
    const plan = planDomain(desiredModel(spec({ cache: { default_edge_ttl_seconds: 600 }, ssl: { mode: 'strict' } })), undefined, { prune: true });
    const fields = (resource: string) => plan.changes.filter((change) => change.resource === resource).map((change) => change.fields.map((field) => field.field));
    expect(fields('domain')).to.deep.equal([[]]);
    expect(fields('record')).to.deep.equal([['type', 'name', 'content', 'proxied'], ['type', 'name', 'content']]);
    expect(fields('origin')).to.deep.equal([['host']]);
    expect(fields('cache')).to.deep.equal([['default_edge_ttl_seconds']]);
    expect(plan.changes.find((change) => change.resource === 'cache')!.action).to.equal('create');
    expect(plan.counts).to.include({ creates: 5, updates: 0 });
  });

  it('diffs nested values field by field', () => {
    const rule = (paths: object[]) => spec({ redirects: [{ name: 'old', match: { paths, methods: ['GET'] }, target: '/new' }] });
    const live = liveOf(desiredModel(rule([{ kind: 'exact', value: '/old' }, { kind: 'prefix', value: '/a/' }])));
    const plan = planDomain(desiredModel(rule([{ kind: 'exact', value: '/older' }, { kind: 'prefix', value: '/a/' }])), live, { prune: true });
    expect(plan.changes.map((change) => change.fields)).to.deep.equal([[{ field: 'match.paths[0].value', before: '/old', after: '/older' }]]);
  });

  it('finds no change in the order of sets or in other spellings of addresses and hostnames', () => {
    const written = (signatures: string[], host: string, anycast: string) =>
      spec({ waf_rules: [{ name: 'managed', signatures }], origins: [{ host, scheme: 'https' }], routing: { routing_mode: 'anycast', anycast_ipv6: [anycast] } });
    const live = liveOf(desiredModel(written(['sqli', 'xss'], '2001:db8::1', '2001:db8::10')));
    const plan = planDomain(desiredModel(written(['xss', 'sqli'], '[2001:DB8:0:0::1]', '2001:DB8:0::10')), live, { prune: true });
    expect(plan.action, JSON.stringify(plan.changes)).to.equal('unchanged');
  });

  it('clears a nullable rule field that the file no longer sets', () => {
    const withLimit = (extra: object) => spec({ rate_limits: [{ name: 'login', requests: 10, period_seconds: 60, key: 'ip', action: 'challenge', block_seconds: 60, enabled: true, priority: 1000, ...extra }] });
    const live = liveOf(desiredModel(withLimit({ challenge_difficulty: 4 })));
    const update = planDomain(desiredModel(withLimit({})), live, { prune: true }).changes.find((change) => change.resource === 'rate_limits')!;
    expect(update.fields).to.deep.equal([{ field: 'challenge_difficulty', before: 4, after: null }]);
  });

  it("keeps the Markdown plan under GitHub's comment limit, each domain folded under a summary table", () => {
    const domains = Array.from({ length: 200 }, (_, index) => planDomain(desiredModel({ ...spec(), domain: `d${index}.example`, headers: [{ name: 'hsts', header_name: 'Strict-Transport-Security', value: 'x'.repeat(400) }] }), undefined, { prune: true }));
    const markdown = planMarkdown(combinePlans([], domains), 'the plan deletes 9 of 10 live items (90%)');
    expect(markdown.length).to.be.lessThan(MARKDOWN_LIMIT);
    expect(markdown).to.include('> the plan deletes 9 of 10 live items (90%)');
    expect(markdown).to.include('| domain | action | create | update | delete | not in git |');
    expect(markdown).to.match(/<details><summary><b>d0\.example \(new domain\)<\/b>: 5 to create, 0 to update, 0 to delete<\/summary>/);
    expect(markdown).to.match(/The plan is too long for one comment; the rest is not shown\. The full plan is in `cdn plan --json`/);
    const small = planMarkdown(combinePlans([], domains.slice(0, 2)));
    expect(small).to.not.include('too long');
    expect(small.match(/<details>/g)).to.have.length(2);
  });

  it('keeps every value of the Markdown plan in its own cell, as text: pipes, raw HTML and Markdown in values', () => {
    const hostile = spec({
      records: [{ type: 'TXT', name: 'v|x', content: 'k=v1|v2 <b>bold</b></details> *em* `tick`', ttl: 300, proxied: false, routing_policy: 'simple', enabled: true }],
      headers: [{ name: 'fonts | cors <i>', header_name: 'X-Note', value: 'a|b</details><script>x</script>' }],
    });
    const markdown = planMarkdown(combinePlans([], [planDomain(desiredModel(hostile), undefined, { prune: true })]), 'deletes <b>90%</b> | of items');
    expect(markdown).to.not.match(/<b>bold|<script>|<\/details><script>/);
    const tokens = marked.lexer(markdown, { gfm: true });
    const tables = tokens.filter((token): token is Tokens.Table => token.type === 'table');
    const changes = tables[1];
    expect(changes.header.map((cell) => cell.text)).to.deep.equal(['', 'resource', 'item', 'field', 'before', 'after']);
    for (const row of changes.rows) expect(row, JSON.stringify(row.map((cell) => cell.text))).to.have.length(6);
    const html = marked.parse(markdown, { gfm: true, async: false }) as string;
    // What a reader sees in each cell: the rendered HTML's text, entities read back.
    const decode = (html: string) => html.replace(/<\/?code>/g, '').replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&(lt|gt|quot|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&' })[name]!);
    const text = (row: Tokens.TableCell[]) => row.map((cell) => decode(marked.parseInline(cell.text, { async: false }) as string));
    const rendered = changes.rows.map(text);
    expect(rendered.find((row) => row[3] === 'content')?.[5]).to.equal('"k=v1|v2 <b>bold</b></details> *em* `tick`"');
    expect(rendered.find((row) => row[3] === 'value')?.[5]).to.equal('"a|b</details><script>x</script>"');
    expect(rendered.find((row) => row[1] === 'headers')?.[2]).to.equal('fonts | cors <i>');
    expect(html).to.not.match(/<b>bold|<script>|<i>/);
    expect(html.match(/<\/details>/g)).to.have.length(1);
    expect(html).to.include('deletes &lt;b&gt;90%&lt;/b&gt; | of items');
  });
});

// The config delta (docs/edge-protocol.md, "Config delta"): how the core writes the changes
// between two snapshots and how an edge rebuilds the newer snapshot's exact bytes from the older
// one. Shared by both sides so that they read the format the same way.
import { createHash } from 'node:crypto';
import { arrayElements, objectMembers, type Span } from './json-spans.js';

/** A top-level member of a snapshot: its name, and the bytes of its key (with the quotes) and of its value. */
export type PartMember = { name: string; key: Buffer; value: Buffer };

/**
 * A snapshot cut into its top-level members and its domains (views of the bytes, not copies), each
 * domain with the digest of its bytes when asked for. A snapshot rebuilt from a delta is held this
 * way too, never joined into one buffer: its bytes are `snapshotChunks(parts)`.
 */
export type SnapshotParts = { members: PartMember[]; domains: Buffer[]; digests: string[] };
/** What a delta is written from on its older side: the top-level members and the domains' digests (not the domains). */
export type DeltaBase = Pick<SnapshotParts, 'members' | 'digests'>;

const DOMAINS = 'domains';

export class DeltaError extends Error {}

function digest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/** Cuts snapshot bytes into parts (throws JsonSpanError or DeltaError when they are not a canonical snapshot). */
export function snapshotParts(bytes: Buffer, withDigests = true): SnapshotParts {
  const spans = objectMembers(bytes);
  const list = spans.find((member) => member.name === DOMAINS);
  if (!list) throw new DeltaError('the snapshot has no domains');
  const view = (span: Span) => bytes.subarray(span.start, span.end);
  const members = spans.map((member) => ({ name: member.name, key: view(member.key), value: view(member.value) }));
  const domains = arrayElements(bytes, list.value.start).map(view);
  return { members, domains, digests: withDigests ? domains.map(digest) : [] };
}

const OPEN = Buffer.from('{');
const CLOSE = Buffer.from('}');
const OPEN_LIST = Buffer.from('[');
const CLOSE_LIST = Buffer.from(']');
const COLON = Buffer.from(':');
const COMMA = Buffer.from(',');

/** The snapshot's bytes, in order, as the views they are held in (hash or write them one after the other). */
export function snapshotChunks(parts: SnapshotParts): Buffer[] {
  const chunks: Buffer[] = [OPEN];
  parts.members.forEach((member, index) => {
    if (index) chunks.push(COMMA);
    chunks.push(member.key, COLON);
    if (member.name !== DOMAINS) return void chunks.push(member.value);
    chunks.push(OPEN_LIST);
    parts.domains.forEach((domain, position) => (position ? chunks.push(COMMA, domain) : chunks.push(domain)));
    chunks.push(CLOSE_LIST);
  });
  chunks.push(CLOSE);
  return chunks;
}

/**
 * The domains' edit script from `from` to `to`: a positive number copies that many of the next
 * domains of `from`, a negative one skips that many, and a domain's JSON is inserted as it is.
 * Both lists are sorted the same way, so unchanged domains stay in order and are copied in runs.
 */
function domainScript(from: DeltaBase, to: SnapshotParts): Buffer[] {
  const indexOf = new Map(from.digests.map((value, index) => [value, index]));
  const script: (number | Buffer)[] = [];
  let cursor = 0;
  const push = (step: number) => {
    const last = script[script.length - 1];
    if (typeof last === 'number' && Math.sign(last) === Math.sign(step)) script[script.length - 1] = last + step;
    else script.push(step);
  };
  to.digests.forEach((value, index) => {
    const found = indexOf.get(value);
    if (found === undefined || found < cursor) {
      script.push(to.domains[index]);
      return;
    }
    if (found > cursor) push(cursor - found);
    push(1);
    cursor = found + 1;
  });
  return script.map((step) => (typeof step === 'number' ? Buffer.from(String(step)) : step));
}

function sameMemberNames(from: DeltaBase, to: SnapshotParts): boolean {
  return from.members.length === to.members.length && from.members.every((member, index) => member.name === to.members[index].name);
}

/**
 * The delta object's bytes that turn `from` (version `since`, `sinceChecksum`) into `to`: the
 * top-level sections whose bytes changed, and the domains' edit script. Undefined when the two
 * snapshots do not have the same top-level members (then only the full snapshot will do).
 */
export function writeDelta(from: DeltaBase, to: SnapshotParts, since: number, sinceChecksum: string): Buffer | undefined {
  if (!sameMemberNames(from, to)) return undefined;
  const sections: Buffer[] = [];
  to.members.forEach((member, index) => {
    if (member.name === DOMAINS) return;
    if (!member.value.equals(from.members[index].value)) sections.push(member.key, COLON, member.value, COMMA);
  });
  if (sections.length) sections.pop();
  const script = domainScript(from, to);
  const steps = script.flatMap((step, index) => (index ? [COMMA, step] : [step]));
  return Buffer.concat([Buffer.from(`{"since":${since},"since_checksum":"${sinceChecksum}","sections":{`), ...sections, Buffer.from('},"domains":['), ...steps, Buffer.from(']}')]);
}

const NUMBER = /^-?[1-9][0-9]*$/;

/** Where a domain of a rebuilt snapshot came from: the index of a domain copied from the older snapshot, or the bytes the delta inserted. */
export type DomainSource = number | Buffer;

/** A snapshot rebuilt from a delta: its parts (no digests), where each domain came from, and the top-level sections the delta replaced. */
export type AppliedDelta = { parts: SnapshotParts; sources: DomainSource[]; sections: Map<string, Buffer> };

function domainSources(from: SnapshotParts, delta: Buffer, script: Span[]): DomainSource[] {
  const sources: DomainSource[] = [];
  let cursor = 0;
  for (const step of script) {
    const text = delta.toString('latin1', step.start, step.end);
    if (delta[step.start] === 0x7b) sources.push(delta.subarray(step.start, step.end));
    else if (NUMBER.test(text) && Number(text) < 0) cursor -= Number(text);
    else if (NUMBER.test(text)) {
      const end = cursor + Number(text);
      if (end > from.domains.length) throw new DeltaError('the delta copies more domains than the snapshot it starts from has');
      for (; cursor < end; cursor++) sources.push(cursor);
    } else throw new DeltaError(`the delta's domains hold ${text.slice(0, 40)}, neither a count nor a domain`);
  }
  return sources;
}

/**
 * Rebuilds the newer snapshot from `from` and the delta object's bytes (`delta`, as written by
 * writeDelta), as parts, with where each domain came from, so an edge re-reads only what
 * changed. The caller checks its bytes (snapshotChunks) against the newer version's checksum.
 * Throws JsonSpanError or DeltaError when the delta cannot be applied.
 */
export function applyDelta(from: SnapshotParts, delta: Buffer): AppliedDelta {
  const members = new Map(objectMembers(delta).map((member) => [member.name, member]));
  const sectionsMember = members.get('sections');
  const domainsMember = members.get(DOMAINS);
  if (!sectionsMember || !domainsMember) throw new DeltaError('the delta has no sections or no domains');
  const sections = new Map(objectMembers(delta, sectionsMember.value.start).map((member) => [member.name, delta.subarray(member.value.start, member.value.end)]));
  const unknown = [...sections.keys()].filter((name) => name === DOMAINS || !from.members.some((member) => member.name === name));
  if (unknown.length) throw new DeltaError(`the delta changes sections the snapshot does not have: ${unknown.join(', ')}`);
  const sources = domainSources(from, delta, arrayElements(delta, domainsMember.value.start));
  const parts: SnapshotParts = {
    members: from.members.map((member) => ({ ...member, value: sections.get(member.name) ?? member.value })),
    domains: sources.map((source) => (typeof source === 'number' ? from.domains[source] : source)),
    digests: [],
  };
  return { parts, sources, sections };
}

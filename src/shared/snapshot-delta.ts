// The config delta (docs/edge-protocol.md, "Config delta"): how the core writes the changes
// between two snapshots and how an edge rebuilds the newer snapshot's exact bytes from the older
// one. Shared by both sides so that they read the format the same way.
import { createHash } from 'node:crypto';
import { arrayElements, objectMembers, type Member, type Span } from './json-spans.js';

/** A snapshot's bytes cut into its top-level members and its domains, each domain with the digest of its bytes. */
export type SnapshotParts = { bytes: Buffer; members: Member[]; domains: Span[]; digests: string[] };

const DOMAINS = 'domains';

export class DeltaError extends Error {}

function digest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/** Cuts snapshot bytes into parts (throws JsonSpanError or DeltaError when they are not a canonical snapshot). */
export function snapshotParts(bytes: Buffer, withDigests = true): SnapshotParts {
  const members = objectMembers(bytes);
  const list = members.find((member) => member.name === DOMAINS);
  if (!list) throw new DeltaError('the snapshot has no domains');
  const domains = arrayElements(bytes, list.value.start);
  const digests = withDigests ? domains.map((span) => digest(bytes.subarray(span.start, span.end))) : [];
  return { bytes, members, domains, digests };
}

const slice = (parts: SnapshotParts, span: Span) => parts.bytes.subarray(span.start, span.end);

/**
 * The domains' edit script from `from` to `to`: a positive number copies that many of the next
 * domains of `from`, a negative one skips that many, and a domain's JSON is inserted as it is.
 * Both lists are sorted the same way, so unchanged domains stay in order and are copied in runs.
 */
function domainScript(from: SnapshotParts, to: SnapshotParts): Buffer[] {
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
      script.push(slice(to, to.domains[index]));
      return;
    }
    if (found > cursor) push(cursor - found);
    push(1);
    cursor = found + 1;
  });
  return script.map((step) => (typeof step === 'number' ? Buffer.from(String(step)) : step));
}

function sameMemberNames(from: SnapshotParts, to: SnapshotParts): boolean {
  return from.members.length === to.members.length && from.members.every((member, index) => member.name === to.members[index].name);
}

/**
 * The delta object's bytes that turn `from` (version `since`, `sinceChecksum`) into `to`: the
 * top-level sections whose bytes changed, and the domains' edit script. Undefined when the two
 * snapshots do not have the same top-level members (then only the full snapshot will do).
 */
export function writeDelta(from: SnapshotParts, to: SnapshotParts, since: number, sinceChecksum: string): Buffer | undefined {
  if (!sameMemberNames(from, to)) return undefined;
  const sections: Buffer[] = [];
  to.members.forEach((member, index) => {
    if (member.name === DOMAINS) return;
    const value = slice(to, member.value);
    if (!value.equals(slice(from, from.members[index].value))) sections.push(slice(to, member.key), Buffer.from(':'), value, Buffer.from(','));
  });
  if (sections.length) sections.pop();
  const script = domainScript(from, to);
  const steps = script.flatMap((step, index) => (index ? [Buffer.from(','), step] : [step]));
  return Buffer.concat([Buffer.from(`{"since":${since},"since_checksum":"${sinceChecksum}","sections":{`), ...sections, Buffer.from('},"domains":['), ...steps, Buffer.from(']}')]);
}

const NUMBER = /^-?[1-9][0-9]*$/;

function assembleDomains(from: SnapshotParts, delta: Buffer, script: Span[]): Buffer[] {
  const out: Buffer[] = [];
  let cursor = 0;
  for (const step of script) {
    const text = delta.toString('latin1', step.start, step.end);
    if (delta[step.start] === 0x7b) out.push(delta.subarray(step.start, step.end));
    else if (NUMBER.test(text) && Number(text) < 0) cursor -= Number(text);
    else if (NUMBER.test(text)) {
      const end = cursor + Number(text);
      if (end > from.domains.length) throw new DeltaError('the delta copies more domains than the snapshot it starts from has');
      for (; cursor < end; cursor++) out.push(slice(from, from.domains[cursor]));
    } else throw new DeltaError(`the delta's domains hold ${text.slice(0, 40)}, neither a count nor a domain`);
  }
  return out;
}

function joined(parts: Buffer[], open: string, close: string): Buffer {
  return Buffer.concat([Buffer.from(open), ...parts.flatMap((part, index) => (index ? [Buffer.from(','), part] : [part])), Buffer.from(close)]);
}

/**
 * Rebuilds the newer snapshot's bytes from `from` and the delta object's bytes (`delta`,
 * as written by writeDelta). The caller checks the result against the newer version's checksum.
 * Throws JsonSpanError or DeltaError when the delta cannot be applied.
 */
export function applyDelta(from: SnapshotParts, delta: Buffer): Buffer {
  const members = new Map(objectMembers(delta).map((member) => [member.name, member]));
  const sections = members.get('sections');
  const domains = members.get(DOMAINS);
  if (!sections || !domains) throw new DeltaError('the delta has no sections or no domains');
  const changed = new Map(objectMembers(delta, sections.value.start).map((member) => [member.name, delta.subarray(member.value.start, member.value.end)]));
  const out = from.members.map((member) => {
    const value = member.name === DOMAINS ? joined(assembleDomains(from, delta, arrayElements(delta, domains.value.start)), '[', ']') : (changed.get(member.name) ?? slice(from, member.value));
    changed.delete(member.name);
    return Buffer.concat([slice(from, member.key), Buffer.from(':'), value]);
  });
  if (changed.size) throw new DeltaError(`the delta changes sections the snapshot does not have: ${[...changed.keys()].join(', ')}`);
  return joined(out, '{', '}');
}

import { assertNeighboursAllow } from '../features/dns/service.js';
import { ValidationError } from '../http/errors.js';
import type { LiveDomain } from './live.js';
import type { DesiredState, LoadedDomain } from './load.js';
import { recordKey, type DomainModel } from './model.js';
import type { Change, Plan } from './plan.js';
import type { Problem } from './problems.js';

type RecordItem = { type: string; name: string; content: string };

// The position of a planned record in its file: the record of the file with the change's identity.
function positionOf(loaded: LoadedDomain, change: Change): (string | number)[] {
  const zone = loaded.spec.zone_name ?? loaded.spec.domain;
  const index = (loaded.spec.records ?? []).findIndex((record) => recordKey(record, zone) === change.key);
  return ['records', index];
}

// A record the plan writes, checked by the API's own zone rule against the records at its name once
// the plan is applied (the file's other records and the kept ones), when a kept record is among them.
function recordProblem(loaded: LoadedDomain, change: Change, desired: DomainModel, kept: RecordItem[]): Problem[] {
  const record = change.desired as RecordItem;
  const keptHere = kept.filter((other) => other.name === record.name);
  if (!keptHere.length) return [];
  const filed = [...desired.records].filter(([key, other]) => key !== change.key && other.name === record.name).map(([, other]) => other as RecordItem);
  try {
    assertNeighboursAllow([...filed, ...keptHere], record);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const names = keptHere.map((other) => `${other.type} ${other.name} ${other.content}`).join(', ');
    return [loaded.yaml.problemAt(positionOf(loaded, change), `${error.detail ?? error.message}; kept live beside it because prune is false: ${names}`)];
  }
}

/**
 * What the API would refuse because of live records the plan keeps (prune: false): every record it
 * creates or updates is checked against the final state of its name, the file's records and the
 * kept ones, with the API's own rule (no CNAME beside other records, no identical record).
 */
export function keptRecordProblems(state: DesiredState, plan: Plan, desired: Map<string, DomainModel>, live: Map<string, LiveDomain>): Problem[] {
  return plan.domains.flatMap((domain) => {
    const current = live.get(domain.domain);
    const model = desired.get(domain.domain);
    const loaded = state.domains.find((candidate) => candidate.spec.domain === domain.domain);
    if (!current || !model || !loaded) return [];
    const kept = domain.unmanaged.filter((item) => item.resource === 'record').map((item) => current.records.get(item.key) as RecordItem);
    const written = domain.changes.filter((change) => change.resource === 'record' && change.action !== 'delete');
    return written.flatMap((change) => recordProblem(loaded, change, model, kept));
  });
}

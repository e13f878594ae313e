import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const SCHEMAS = new URL('../../schemas/', import.meta.url);

function schemaFile(relative: string): object {
  return JSON.parse(readFileSync(new URL(relative, SCHEMAS), 'utf8')) as object;
}

/** Validators of a whole config snapshot and of one of its domains (what `domains` holds, each checked alone). */
export type SnapshotValidators = { snapshot: ValidateFunction; domain: ValidateFunction };

/**
 * Validators of config snapshots (schemas/snapshot/config-snapshot.schema.json,
 * whose matches follow schemas/api/rule-match.json). They never change what they
 * check: an edge validates a pulled snapshot with them before activating it. The
 * schema puts no condition on `domains` but each item's, so a snapshot is valid
 * when its other members are and each domain is on its own.
 */
export function snapshotValidators(): SnapshotValidators {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  ajv.addSchema(schemaFile('api/rule-match.json'));
  const schema = schemaFile('snapshot/config-snapshot.schema.json') as { $id: string };
  const snapshot = ajv.compile(schema);
  const domain = ajv.getSchema(`${schema.$id}#/$defs/domain`);
  if (!domain) throw new Error('the snapshot schema has no $defs/domain');
  return { snapshot, domain };
}

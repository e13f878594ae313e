// Builds the desired-state JSON Schemas (schemas/gitops/*.schema.json) from the API request
// schemas, so YAML and the REST API accept exactly the same fields. The output is committed
// (editors read it through the yaml-language-server modeline); a test checks it is current.
//   npx tsx scripts/gitops-schemas.ts          write the files
//   npx tsx scripts/gitops-schemas.ts --check  exit 1 when they are out of date
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildGitopsSchemas } from '../src/gitops/schema-build.js';

const root = new URL('..', import.meta.url).pathname;
const apiDir = path.join(root, 'schemas/api');
const api = Object.fromEntries(
  readdirSync(apiDir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => {
      const schema = JSON.parse(readFileSync(path.join(apiDir, file), 'utf8'));
      return [schema.$id, schema];
    }),
);
const check = process.argv.includes('--check');
let stale = false;
for (const [file, schema] of Object.entries(buildGitopsSchemas(api))) {
  const target = path.join(root, 'schemas/gitops', file);
  const text = `${JSON.stringify(schema, null, 2)}\n`;
  if (check) {
    const current = (() => {
      try {
        return readFileSync(target, 'utf8');
      } catch {
        return '';
      }
    })();
    if (current !== text) {
      console.error(`${path.relative(root, target)} is out of date; run npx tsx scripts/gitops-schemas.ts`);
      stale = true;
    }
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${path.relative(root, target)}`);
  }
}
process.exit(stale ? 1 : 0);

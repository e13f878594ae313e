// Prints docs/configuration.md from the variable table: `npx tsx scripts/config-docs.ts > docs/configuration.md`.
import { VARIABLES, type Variable } from '../src/config/variables.js';

function defaultText(variable: Variable): string {
  if (variable.kind === 'int' && typeof variable.default === 'object') {
    return `${variable.default.development} (production: ${variable.default.production})`;
  }
  if (variable.default === undefined) return '(unset)';
  return String(variable.default);
}

function typeText(variable: Variable): string {
  switch (variable.kind) {
    case 'int':
      return `integer ${variable.min}..${variable.max}`;
    case 'bool':
      return 'boolean';
    case 'enum':
      return variable.values.join(' \\| ');
    case 'string':
      return variable.secret ? 'string (secret)' : 'string';
  }
}

const rows = Object.values(VARIABLES as Record<string, Variable>).map(
  (variable) => `| \`${variable.env}\` | ${typeText(variable)} | ${defaultText(variable)} | ${variable.description.replaceAll('|', '\\|')} |`,
);

process.stdout.write(`# Configuration

Every setting comes from an environment variable. They are read and validated in one place
(\`src/config/\`) when a command starts: a bad value stops the process with one line naming the
variable, for example \`cdn: configuration error: CDN_SYNC_INTERVAL_SECONDS="abc" is not an integer\`
(exit code 2). Booleans accept \`true/false\`, \`1/0\`, \`yes/no\`, \`on/off\`; an empty value means "unset".
\`cdn doctor\` names every bad value at once, and the settings unsafe in production (docs/doctor.md).

\`CDN_ENV\` picks between the spec's "dev" and "production start" defaults where they differ; a
variable set explicitly always wins.

This file is generated from \`src/config/variables.ts\` by \`npx tsx scripts/config-docs.ts\`; a test
fails when a variable is missing here.

| Variable | Type | Default | Meaning |
|---|---|---|---|
${rows.join('\n')}
`);

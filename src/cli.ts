import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config/load.js';
import { registerAdminCommands } from './commands/admin.js';
import { registerEdgeTokenCommands } from './commands/edge-token.js';
import { keepNextTickShape } from './shared/next-tick-shape.js';

/** Collects a repeatable option's values (`--domain a --domain b`). */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function config(): Config {
  return loadConfig(process.env);
}

// Command modules are imported when their command runs, so `cdn validate` does not load the server.
const commands = {
  core: () => import('./commands/core.js'),
  local: () => import('./commands/local.js'),
  migrate: () => import('./commands/migrate.js'),
  validate: () => import('./commands/validate.js'),
  plan: () => import('./commands/plan.js'),
  export: () => import('./commands/export.js'),
  status: () => import('./commands/gitops-status.js'),
  reconcile: () => import('./commands/reconcile.js'),
  edge: () => import('./commands/edge.js'),
  rollout: () => import('./commands/rollout.js'),
  doctor: () => import('./commands/doctor.js'),
};

/** Builds the `cdn` command tree; each action loads the configuration lazily so `--help` never needs it. */
export function buildCli(): Command {
  const program = new Command('cdn')
    .description('Self-hosted CDN control plane: core API, GitOps reconciler, edge proxy and operations')
    .version('0.1.0')
    .showHelpAfterError();
  program
    .command('core')
    .description('start the core REST API (and an embedded PostgreSQL when DATABASE_URL is unset)')
    .action(async () => void (await (await commands.core()).runCore(config())));
  program
    .command('local')
    .description('start the local stack: core on CDN_CORE_PORT, embedded PostgreSQL, bootstrapped admin (credentials printed)')
    .action(async () => (await commands.local()).runLocal(process.env));
  program
    .command('edge')
    .description('start the edge proxy on CDN_EDGE_HTTP_PORT and CDN_EDGE_HTTPS_PORT: CDN_EDGE_WORKERS workers serving the snapshot pulled from CDN_EDGE_CORE_URL with CDN_EDGE_TOKEN; its metrics on CDN_EDGE_METRICS_PORT')
    .action(async () => (await commands.edge()).runEdgeCommand(config()));
  program
    .command('migrate')
    .description('apply pending database migrations')
    .addOption(new Option('--status', 'list applied and pending migrations without applying'))
    .action(async (options: { status?: boolean }) => (await commands.migrate()).runMigrate(config(), options.status === true));
  program
    .command('validate')
    .description('check a desired-state directory (domains/*.yaml, settings/*.yaml, cdn-gitops.yaml); problems print as file:line:col')
    .argument('[dir]', 'the desired-state directory', '.')
    .option('--json', 'print the result as JSON')
    .action(async (dir: string, options: { json?: boolean }) => (await commands.validate()).runValidate(dir, options));
  program
    .command('plan')
    .description('compare a desired-state directory with the live service and print the changes apply would make')
    .argument('[dir]', 'the desired-state directory', '.')
    .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:8080)')
    .option('--token <token>', 'API token (default $CDN_API_TOKEN)')
    .option('--json', 'print the plan as one JSON document (with the safety warning, the desired commit and digest, and the live digest)')
    .option('--markdown', 'print the plan as Markdown for a pull-request comment (under 65,536 characters); when nothing can be planned, a Markdown error')
    .option('--out <file>', 'also write the plan to FILE, for cdn apply FILE')
    .option('--domain <apex>', 'plan only this domain (repeat for more; settings are left out)', collect)
    .option('--detailed-exitcode', 'exit 2 when there are changes, 3 when the safety gate will refuse them, 0 when none, 1 on errors')
    .option('--expect-no-changes', 'exit 1 when anything would change')
    .option('--ref <ref>', 'plan the state of this git ref (commit, branch, tag) of the repository DIR instead of its working tree')
    .option('--path <subdir>', 'with --ref: sub-directory holding the desired state', '.')
    .addHelpText('after', '\nExit codes: 0 no changes (or changes without --detailed-exitcode), 1 error or --expect-no-changes with changes, 2 changes with --detailed-exitcode, 3 with --detailed-exitcode: changes the safety gate will refuse (cdn apply exits 3 on them without --force).')
    .action(async (dir: string, options: object) => (await commands.plan()).runPlan(dir, options));
  program
    .command('apply')
    .description('apply a desired-state directory, or exactly the plan in a file written by cdn plan --out, through the REST API: each domain in one transaction')
    .argument('[dir-or-plan]', 'the desired-state directory, or a plan file', '.')
    .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:8080)')
    .option('--token <token>', 'API token (default $CDN_API_TOKEN)')
    .option('--force', 'apply even when the plan deletes more than max_delete_percent of live items')
    .option('--domain <apex>', 'apply only this domain (repeat for more; settings are left out)', collect)
    .option('--json', 'print the outcome as one JSON document')
    .option('--wait [seconds]', 'after applying, wait until every pool edge serves the result (default 300 seconds)')
    .addHelpText('after', '\nExit codes: 0 applied or no changes (with --wait: and every pool edge serves it), 1 error (nothing applied; a stale plan file too), 3 refused by the safety gate, 4 a domain failed (it was left as it was), 5 --wait timed out (the laggards are named on stderr).')
    .action(async (dir: string, options: object) => (await commands.plan()).runApply(dir, options));
  program
    .command('export')
    .description('write the live state of domains as desired-state files (DIR/domains/<apex>.yaml), to bring existing domains under git')
    .argument('[dir]', 'the desired-state directory to write into', '.')
    .option('--domain <apex>', 'export only this domain (repeat for more)', collect)
    .option('--force', 'replace files that exist')
    .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:8080)')
    .option('--token <token>', 'API token (default $CDN_API_TOKEN)')
    .action(async (dir: string, options: object) => (await commands.export()).runExport(dir, options));
  program
    .command('status')
    .description("print the GitOps controller's state per repository (GET /api/v1/gitops/status)")
    .option('--json', 'print it as JSON')
    .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:8080)')
    .option('--token <token>', 'API token (default $CDN_API_TOKEN)')
    .action(async (options: object) => (await commands.status()).runStatus(options));
  program
    .command('runs')
    .description('list the recorded GitOps reconcile runs, newest first')
    .option('--limit <n>', 'how many (1 to 500)', '20')
    .option('--json', 'print them as JSON')
    .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:8080)')
    .option('--token <token>', 'API token (default $CDN_API_TOKEN)')
    .action(async (options: object) => (await commands.status()).runRuns(options));
  const rollout = program.command('rollout').description('the canary rollout of config versions (docs/rollout.md)');
  const serverOptions = (command: Command) =>
    command
      .option('--json', 'print JSON')
      .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:8080)')
      .option('--token <token>', 'API token (default $CDN_API_TOKEN)');
  serverOptions(rollout.command('status').description('the latest version, the fleet and canary versions, and recent canary verdicts')).action(async (options: object) => (await commands.rollout()).runRolloutStatus(options));
  serverOptions(rollout.command('promote').description('promote the baking or failed canary version to every edge (audited)')).action(async (options: object) => (await commands.rollout()).runRolloutDecision('promote', options));
  serverOptions(rollout.command('abort').description('abort the baking or failed canary version: canaries go back to the fleet version, later versions may bake (audited)')).action(async (options: object) => (await commands.rollout()).runRolloutDecision('abort', options));
  program
    .command('accept-plan')
    .description('let the controller apply the plan of one commit that the safety gate refused (audited)')
    .requiredOption('--repo <repo>', 'the repository, as the controller names it in its runs (a URL without credentials; any it carries are dropped)')
    .requiredOption('--commit <sha>', 'the refused commit')
    .requiredOption('--reason <text>', 'why the deletes are intended')
    .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:8080)')
    .option('--token <token>', 'API token (default $CDN_API_TOKEN)')
    .action(async (options: { repo: string; commit: string; reason: string }) => (await commands.status()).runAcceptPlan(options));
  program
    .command('reconcile')
    .description('run the GitOps controller: keep the service converged to a repository (fetch on an interval, on file changes for a working copy)')
    .requiredOption('--repo <url-or-path>', 'repository URL, file:// URL or local working copy')
    .option('--branch <branch>', 'branch to follow', 'main')
    .option('--path <subdir>', 'sub-directory holding the desired state', '.')
    .option('--interval <seconds>', 'fetch interval', '15')
    .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:$CDN_CORE_PORT)')
    .option('--token <token>', 'API token (default $CDN_API_TOKEN)')
    .option('--once', 'reconcile once, print the run report and exit')
    .option('--wait [seconds]', 'with --once: then wait until every pool edge serves the result (default 300 seconds)')
    .addHelpText('after', '\nExit codes with --once: 0 applied or no changes (with --wait: and every pool edge serves it), 1 anything else (rejected, refused by the safety gate: its error names the cdn accept-plan line, failed, partial), 5 --wait timed out (the laggards are named on stderr).')
    .action(async (options: import('./commands/reconcile.js').ReconcileOptions) => (await commands.reconcile()).runReconcile(config(), options));
  program
    .command('doctor')
    .description('check this environment before going live: configuration, production-unsafe settings, secrets, database and migrations, PowerDNS and its zones, the ACME directory, edges, GitOps; one line per check with what to do')
    .option('--json', 'print the checks as a JSON array')
    .option('--timeout <seconds>', 'bound of each network call; a whole check gets 2 s more', '10')
    .addHelpText('after', '\nExit codes: 0 nothing failed (warnings and skipped checks do not fail), 1 a check failed (docs/doctor.md).')
    .action(async (options: import('./commands/doctor.js').DoctorCommandOptions) => (await commands.doctor()).runDoctor(options));
  registerAdminCommands(program.command('admin').description('manage admin users'), config);
  registerEdgeTokenCommands(program.command('edge-token').description('manage edge tokens'), config);
  return program;
}

/** Runs the CLI; configuration errors print one line and exit 2, other failures exit 1. */
export async function main(argv: string[]): Promise<void> {
  keepNextTickShape();
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`cdn: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`cdn: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

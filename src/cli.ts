import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config/load.js';
import { registerAdminCommands } from './commands/admin.js';
import { registerEdgeTokenCommands } from './commands/edge-token.js';

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
  reconcile: () => import('./commands/reconcile.js'),
  edge: () => import('./commands/edge.js'),
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
    .description('start the edge proxy on CDN_EDGE_HTTP_PORT: CDN_EDGE_WORKERS workers serving the snapshot pulled from CDN_EDGE_CORE_URL with CDN_EDGE_TOKEN')
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
    .option('--json', 'print the plan as JSON')
    .option('--markdown', 'print the plan as Markdown for a pull request')
    .option('--ref <ref>', 'plan the state of this git ref (commit, branch, tag) of the repository DIR instead of its working tree')
    .option('--path <subdir>', 'with --ref: sub-directory holding the desired state', '.')
    .action(async (dir: string, options: object) => (await commands.plan()).runPlan(dir, options));
  program
    .command('apply')
    .description('apply a desired-state directory through the REST API, domain by domain')
    .argument('[dir]', 'the desired-state directory', '.')
    .option('--url <url>', 'core API base URL (default $CDN_API_URL or http://127.0.0.1:8080)')
    .option('--token <token>', 'API token (default $CDN_API_TOKEN)')
    .option('--force', 'apply even when the plan deletes more than max_delete_percent of live items')
    .action(async (dir: string, options: object) => (await commands.plan()).runApply(dir, options));
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
    .action(async (options: import('./commands/reconcile.js').ReconcileOptions) => (await commands.reconcile()).runReconcile(config(), options));
  registerAdminCommands(program.command('admin').description('manage admin users'), config);
  registerEdgeTokenCommands(program.command('edge-token').description('manage edge tokens'), config);
  return program;
}

/** Runs the CLI; configuration errors print one line and exit 2, other failures exit 1. */
export async function main(argv: string[]): Promise<void> {
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

import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config/load.js';
import { runCore } from './commands/core.js';
import { runMigrate } from './commands/migrate.js';
import { runLocal } from './commands/local.js';
import { registerAdminCommands } from './commands/admin.js';

function config(): Config {
  return loadConfig(process.env);
}

/** Builds the `cdn` command tree; each action loads the configuration lazily so `--help` never needs it. */
export function buildCli(): Command {
  const program = new Command('cdn')
    .description('Self-hosted CDN control plane: core API, GitOps reconciler, edge proxy and operations')
    .version('0.1.0')
    .showHelpAfterError();
  program
    .command('core')
    .description('start the core REST API (and an embedded PostgreSQL when DATABASE_URL is unset)')
    .action(() => runCore(config()));
  program
    .command('local')
    .description('start the local stack: core on CDN_CORE_PORT, embedded PostgreSQL, bootstrapped admin (credentials printed)')
    .action(() => runLocal(process.env));
  program
    .command('migrate')
    .description('apply pending database migrations')
    .addOption(new Option('--status', 'list applied and pending migrations without applying'))
    .action((options: { status?: boolean }) => runMigrate(config(), options.status === true));
  registerAdminCommands(program.command('admin').description('manage admin users'), config);
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

import type { Command } from 'commander';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { withDatabase } from './with-database.js';

type TokenService = typeof import('../features/edges/tokens.js');

function withDb<T>(config: Config, work: (db: Db, service: TokenService) => Promise<T>): Promise<T> {
  return withDatabase(config, () => import('../features/edges/tokens.js'), work);
}

/** `cdn edge-token create|list|revoke`. */
export function registerEdgeTokenCommands(command: Command, config: () => Config): void {
  command
    .command('create')
    .description('create an edge token (printed once; only its hash is stored)')
    .option('--name <name>', 'a label for the token', 'edge')
    .option('--edge-id <id>', 'bind the token to one edge id')
    .action(async (options: { name: string; edgeId?: string }) => {
      const { token, record } = await withDb(config(), (db, service) => service.createEdgeToken(db, options.name, options.edgeId));
      process.stdout.write(`created edge token ${record.prefix}… (${record.id})${record.edge_id ? ` bound to ${record.edge_id}` : ''}\ntoken: ${token}\n`);
    });
  command
    .command('list')
    .description('list edge tokens')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const tokens = await withDb(config(), (db, service) => service.listEdgeTokens(db));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${'PREFIX'.padEnd(16)} ${'NAME'.padEnd(16)} ${'EDGE'.padEnd(20)} STATE\n`);
      for (const token of tokens) process.stdout.write(`${token.prefix.padEnd(16)} ${token.name.padEnd(16)} ${(token.edge_id ?? '(any)').padEnd(20)} ${token.revoked ? 'revoked' : 'active'}\n`);
    });
  command
    .command('revoke <id-or-prefix>')
    .description('revoke an edge token; requests with it are refused at once')
    .action(async (idOrPrefix: string) => {
      const token = await withDb(config(), (db, service) => service.revokeEdgeToken(db, idOrPrefix));
      process.stdout.write(`edge token ${token.prefix}… revoked\n`);
    });
}

import { randomBytes } from 'node:crypto';
import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { withDatabase } from './with-database.js';

type AdminService = typeof import('../features/admin/service.js');

type PasswordOptions = { password?: string; passwordStdin?: boolean };

function withDb<T>(config: Config, work: (db: Db, service: AdminService) => Promise<T>): Promise<T> {
  return withDatabase(config, () => import('../features/admin/service.js'), work);
}

// The password comes from --password, from stdin (--password-stdin) or is generated and printed once.
async function passwordFrom(options: PasswordOptions): Promise<{ password: string; generated: boolean }> {
  if (options.password) return { password: options.password, generated: false };
  if (options.passwordStdin) return { password: (await text(process.stdin)).replace(/\r?\n$/, ''), generated: false };
  return { password: randomBytes(18).toString('base64url'), generated: true };
}

function withPasswordOptions(command: Command): Command {
  return command
    .option('--password <password>', 'the password (visible in shell history; prefer --password-stdin)')
    .option('--password-stdin', 'read the password from standard input');
}

/** `cdn admin create|list|reset-password|disable`. */
export function registerAdminCommands(admin: Command, config: () => Config): void {
  withPasswordOptions(admin.command('create <username>').description('create an admin user (a password is generated unless given)')).action(
    async (username: string, options: PasswordOptions) => {
      const { password, generated } = await passwordFrom(options);
      const user = await withDb(config(), (db, service) => service.createAdmin(db, username, password));
      process.stdout.write(`created admin ${user.username} (${user.id})\n`);
      if (generated) process.stdout.write(`password: ${password}\n`);
    },
  );
  admin
    .command('list')
    .description('list admin users')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const users = await withDb(config(), (db, service) => service.listAdmins(db));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(users.map(({ password_hash: _, ...user }) => user), null, 2)}\n`);
        return;
      }
      process.stdout.write(`${'USERNAME'.padEnd(24)} ${'STATE'.padEnd(9)} LAST LOGIN\n`);
      for (const user of users) {
        process.stdout.write(`${user.username.padEnd(24)} ${(user.disabled ? 'disabled' : 'active').padEnd(9)} ${user.last_login_at?.toISOString() ?? 'never'}\n`);
      }
    });
  withPasswordOptions(admin.command('reset-password <username>').description('set a new password, re-enable the user and revoke its sessions')).action(
    async (username: string, options: PasswordOptions) => {
      const { password, generated } = await passwordFrom(options);
      await withDb(config(), (db, service) => service.resetPassword(db, username, password));
      process.stdout.write(`password of ${username} reset; its sessions were revoked\n`);
      if (generated) process.stdout.write(`password: ${password}\n`);
    },
  );
  admin
    .command('disable <username>')
    .description('disable an admin user and revoke its sessions')
    .action(async (username: string) => {
      await withDb(config(), (db, service) => service.disableAdmin(db, username));
      process.stdout.write(`admin ${username} disabled\n`);
    });
}

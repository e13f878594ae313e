import pino from 'pino';
import { openDatabase } from '../../src/db/client.js';
import { eventually } from '../support/eventually.js';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';

describe('database pool', () => {
  let url: string;
  before(async () => {
    url = await createTestDatabase();
  });
  after(async () => {
    await dropTestDatabase(url);
  });

  it('logs a connection the server cuts while it is checked out, instead of crashing the process', async () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
    const database = openDatabase(url, logger);
    const held = await database.pool.connect();
    try {
      const { rows } = await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await database.pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      await eventually('the lost connection logged', async () => (warnings.includes('database connection lost') ? true : undefined));
    } finally {
      held.release(true);
      await database.close();
    }
  });
});

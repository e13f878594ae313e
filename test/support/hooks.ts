import { stopSharedServer } from './database.js';

/** Mocha root hooks: shared resources of the whole run are released at the end. */
export const mochaHooks = {
  async afterAll() {
    await stopSharedServer();
  },
};

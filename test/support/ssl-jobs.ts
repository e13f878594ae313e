import type { Json, TestCore } from './core.js';
import { eventually } from './eventually.js';

const FINISHED = ['succeeded', 'failed'];

/** Waits for SSL job `jobId` of the domain to succeed or fail (GET …/ssl/acme-status); returns it. */
export function sslJobFinished(core: TestCore, domainId: string, jobId: string, timeoutMs = 90000): Promise<Json> {
  return eventually(`job ${jobId} finished`, async () => {
    const { data } = await core.get(`/api/v1/domains/${domainId}/ssl/acme-status`);
    const job = data.jobs.find((row: Json) => row.id === jobId);
    return job && FINISHED.includes(job.status) ? job : undefined;
  }, timeoutMs);
}

/** Waits for every SSL job of the domain to succeed or fail; returns them. */
export function sslJobsFinished(core: TestCore, domainId: string, timeoutMs = 120000): Promise<Json[]> {
  return eventually('every job finished', async () => {
    const { data } = await core.get(`/api/v1/domains/${domainId}/ssl/acme-status`);
    return data.jobs.every((job: Json) => FINISHED.includes(job.status)) ? data.jobs : undefined;
  }, timeoutMs);
}

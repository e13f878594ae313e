// The acme-client library, set up once per process: the CA bundle CDN_SSL_ACME_CA_FILE trusted for
// the directory's TLS, no retries of its own (a rate limit is the scheduler's to wait out, so a job
// never sleeps holding its claim), and the CA's problem documents kept as AcmeProblem errors.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import acme from 'acme-client';
import type { AxiosError, AxiosResponse } from 'axios';
import { AcmeProblem, retryAfterSeconds } from './acme-problem.js';

type Problem = { type?: unknown; detail?: unknown };

// A problem answer (4xx/5xx with a problem document) becomes an AcmeProblem; badNonce stays the library's to retry.
function problemOf(response: AxiosResponse | undefined): AcmeProblem | undefined {
  if (!response || response.status < 400) return undefined;
  const problem = (response.data ?? {}) as Problem;
  const type = typeof problem.type === 'string' ? problem.type : `HTTP ${response.status}`;
  if (type.endsWith(':badNonce')) return undefined;
  const detail = typeof problem.detail === 'string' ? problem.detail : `the CA answered ${response.status}`;
  const header = response.headers?.['retry-after'];
  return new AcmeProblem(type, detail, retryAfterSeconds(typeof header === 'string' ? header : undefined, new Date()));
}

let configuredCaFile: string | undefined;

/** Sets the library up for `caFile` (empty: the system roots only); the same file every time in a process. */
export function configureAcme(caFile: string): void {
  if (configuredCaFile === caFile) return;
  if (configuredCaFile === undefined) {
    (acme.axios.defaults as unknown as { acmeSettings: { retryMaxAttempts: number } }).acmeSettings.retryMaxAttempts = 0;
    const raise = (response: AxiosResponse) => {
      const problem = problemOf(response);
      if (problem) throw problem;
      return response;
    };
    acme.axios.interceptors.response.use(raise, (error: AxiosError) => {
      throw problemOf(error.response) ?? error;
    });
  }
  configuredCaFile = caFile;
  acme.axios.defaults.httpsAgent = caFile ? new Agent({ ca: [...rootCertificates, readFileSync(caFile, 'utf8')], keepAlive: true }) : new Agent({ keepAlive: true });
}

/** An ACME client for the directory with the account key (and its URL once known); status polls every 0.5–5 s. */
export function acmeClient(directoryUrl: string, accountKey: string, accountUrl?: string): acme.Client {
  return new acme.Client({ directoryUrl, accountKey, accountUrl: accountUrl ?? undefined, backoffAttempts: 30, backoffMin: 500, backoffMax: 5000 });
}

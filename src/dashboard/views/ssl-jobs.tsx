import { Badge, DataTable, Empty, When } from '../components.js';
import type { Domain } from './domains.js';
import { JOB_KIND_WORDS, JOB_STATUS_WORDS, JOB_TONE, accountInWords } from './ssl-words.js';

export type Job = { id: string; kind: string; status: string; hostnames: string[]; challenge: string | null; attempts: number; last_error: string | null; run_after: number | null; finished_at: number | null };
export type Account = { status: string; directory_url: string | null; detail?: string; email?: string | null; last_error?: string | null };
export type AcmeStatus = { account: Account; jobs: Job[]; certificates: { id: string; renew_after: number | null }[] };

/** A job's state in words: a waiting job says when it runs next, a finished one when it ended. */
export function JobState({ job }: { job: Job }) {
  return (
    <>
      <Badge tone={JOB_TONE[job.status] ?? 'neutral'}>{JOB_STATUS_WORDS[job.status] ?? job.status}</Badge>
      {job.status === 'queued' ? (
        <span>
          {' '}
          next run from <When at={job.run_after} />
        </span>
      ) : null}
      {job.finished_at ? (
        <span>
          {' '}
          at <When at={job.finished_at} />
        </span>
      ) : null}
    </>
  );
}

/** The ACME account in words, and the domain's newest jobs with their attempts and last error. */
export function AcmeJobs({ domain, status }: { domain: Domain; status: AcmeStatus }) {
  return (
    <>
      <p class="acme-account">{accountInWords(status.account)}</p>
      {status.jobs.length === 0 ? <Empty>No certificate job yet.</Empty> : null}
      {status.jobs.length ? (
        <DataTable
          label={`Certificate jobs of ${domain.domain}`}
          columns={['Job', { label: 'Names', wrap: true }, 'Challenge', 'Status', 'Attempts', { label: 'Last error', wrap: true }]}
          rows={status.jobs}
          rowKey={(job) => job.id}
          cells={(job) => [
            JOB_KIND_WORDS[job.kind] ?? job.kind,
            job.hostnames.join(', '),
            job.challenge ?? 'by the default rule',
            <JobState job={job} />,
            job.attempts,
            job.last_error ?? '—',
          ]}
        />
      ) : null}
    </>
  );
}

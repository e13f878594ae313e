import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { SSL_REQUEST_RULES } from '../api-schemas.js';
import { FormField, describedBy } from '../form-field.js';
import { FormFailure } from '../field-error.js';
import { useSubmit } from '../use-submit.js';
import type { Domain } from './domains.js';
import { atHostnamesInput, hostnamesOf } from './ssl-hostnames.js';
import { JobState, type Job } from './ssl-jobs.js';
import { JOB_KIND_WORDS } from './ssl-words.js';

const CHALLENGES = SSL_REQUEST_RULES.challenge.options ?? [];
const CHALLENGE_HELP = 'By default: a wildcard always uses DNS-01; any other name uses HTTP-01 when the edges serve it (a proxied record), DNS-01 otherwise. A choice here applies to the names that are not wildcards.';

/** The job a request or renewal answered with (a new one, or the same request's job still waiting or running), in words. */
function QueuedJob({ job }: { job: Job }) {
  return (
    <p role="status" class="queued-job">
      {JOB_KIND_WORDS[job.kind] ?? job.kind} of {job.hostnames.join(', ')} requested: <JobState job={job} />
    </p>
  );
}

/** "Renew now" (POST …/ssl/renew, 202): a renewal of the newest ACME certificate now, or an issuance when there is none. */
export function RenewNow({ domain, onQueued }: { domain: Domain; onQueued: () => void }) {
  const [job, setJob] = useState<Job>();
  const { failure, busy, submit } = useSubmit(async () => {
    setJob((await api<{ data: Job }>('POST', `/api/v1/domains/${domain.id}/ssl/renew`)).data);
    onQueued();
  });
  return (
    <form class="record-form" onSubmit={submit} aria-label="Renew now">
      <p class="help">Renews the newest ACME certificate now, whatever its renewal time; without one, requests a certificate for the proxied names.</p>
      <button type="submit" disabled={busy}>
        Renew now
      </button>
      {job ? <QueuedJob job={job} /> : null}
      <FormFailure failure={failure} fields={[]} />
    </form>
  );
}

/** "Request certificate": queues an ACME issuance for the names given (the proxied ones by default) with the challenge chosen. */
export function RequestCertificate({ domain, onQueued }: { domain: Domain; onQueued: () => void }) {
  const [hostnames, setHostnames] = useState('');
  const [challenge, setChallenge] = useState('');
  const [job, setJob] = useState<Job>();
  const { failure, busy, submit, changed } = useSubmit(async () => {
    const body = { hostnames: hostnamesOf(hostnames), challenge: challenge || undefined };
    setJob((await api<{ data: Job }>('POST', `/api/v1/domains/${domain.id}/ssl/request`, body)).data);
    onQueued();
  });
  const shown = atHostnamesInput(failure);
  return (
    <form class="record-form" onSubmit={submit} aria-label="Request certificate">
      <FormField id="ssl-request-hostnames" label="Hostnames (optional)" help="Separated by commas or spaces; by default the domain's proxied names (the apex when none is proxied)." failure={shown} field="hostnames">
        <input {...describedBy('ssl-request-hostnames', shown?.field === 'hostnames')} name="hostnames" value={hostnames} placeholder={`www.${domain.domain}`} onInput={(event) => (setHostnames(event.currentTarget.value), changed('hostnames'))} />
      </FormField>
      <FormField id="ssl-request-challenge" label="Challenge" help={CHALLENGE_HELP} failure={shown} field="challenge">
        <select {...describedBy('ssl-request-challenge', shown?.field === 'challenge')} name="challenge" value={challenge} onChange={(event) => (setChallenge(event.currentTarget.value), changed('challenge'))}>
          <option value="">By the default rule</option>
          {CHALLENGES.map((name) => (
            <option key={name} value={String(name)}>
              {String(name).toUpperCase()}
            </option>
          ))}
        </select>
      </FormField>
      <button type="submit" disabled={busy}>
        Request certificate
      </button>
      {job ? <QueuedJob job={job} /> : null}
      <FormFailure failure={shown} fields={['hostnames', 'challenge']} />
    </form>
  );
}

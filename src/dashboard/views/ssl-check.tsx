import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { When } from '../components.js';
import { FormField, describedBy } from '../form-field.js';
import { FormFailure } from '../field-error.js';
import { useSubmit } from '../use-submit.js';
import type { Domain } from './domains.js';
import { expiryInWords } from './ssl-words.js';

type Served = { hostnames: string[]; issuer: string; serial: string; not_after: number };
type Check = { hostname: string; edge: { edge_id: string; address: string; port: number } | null; connected: boolean; error: string | null; protocol?: string; alpn?: string | null; certificate?: Served; covers_hostname?: boolean; chain?: { valid: boolean; error: string | null } };

/** What the check found, in words: the certificate the edge served, or why it could not tell. */
function CheckAnswer({ check }: { check: Check }) {
  const edge = check.edge ? `edge ${check.edge.edge_id} (${check.edge.address}:${check.edge.port})` : undefined;
  if (!check.connected || !check.certificate) {
    return (
      <p role="status" class="check-outcome">
        Could not check {check.hostname}
        {edge ? ` on ${edge}` : ''}: {check.error}.
      </p>
    );
  }
  const served = check.certificate;
  return (
    <div role="status" class="check-outcome">
      <p>
        For {check.hostname}, {edge} serves a certificate for {served.hostnames.join(', ')} issued by {served.issuer} (serial <code>{served.serial}</code>), valid until <When at={served.not_after} /> ({expiryInWords(served.not_after)}), over {check.protocol}.
      </p>
      <p>{check.covers_hostname ? `It covers ${check.hostname}.` : `It does not cover ${check.hostname}.`}</p>
      <p>{check.chain?.valid ? 'Its chain is valid.' : `Its chain is not valid: ${check.chain?.error}.`}</p>
    </div>
  );
}

/** "Check what the edges serve" (POST …/ssl/check): connects to a pool edge's TLS port with the name as SNI. */
export function CheckServed({ domain }: { domain: Domain }) {
  const [hostname, setHostname] = useState(domain.domain);
  const [check, setCheck] = useState<Check>();
  const { failure, busy, submit, changed } = useSubmit(async () => {
    setCheck(undefined);
    setCheck((await api<{ data: Check }>('POST', `/api/v1/domains/${domain.id}/ssl/check`, { hostname })).data);
  });
  return (
    <form class="record-form" onSubmit={submit} aria-label="Check what the edges serve">
      <FormField id="ssl-check-hostname" label="Hostname to check" help="Sent as SNI to the first pool edge that reports its TLS port." failure={failure} field="hostname">
        <input {...describedBy('ssl-check-hostname', failure?.field === 'hostname')} name="hostname" required value={hostname} onInput={(event) => (setHostname(event.currentTarget.value), changed('hostname'))} />
      </FormField>
      <button type="submit" disabled={busy}>
        Check
      </button>
      {check ? <CheckAnswer check={check} /> : null}
      <FormFailure failure={failure} fields={['hostname']} />
    </form>
  );
}

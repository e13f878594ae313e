import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { FormField, describedBy } from '../form-field.js';
import { FormFailure } from '../field-error.js';
import { useSubmit } from '../use-submit.js';
import type { Domain } from './domains.js';
import type { Certificate } from './ssl-certificates.js';
import { atHostnamesInput, hostnamesOf } from './ssl-hostnames.js';

const EMPTY = { certificate: '', private_key: '', chain: '', hostnames: '' };
const FIELDS = ['certificate', 'private_key', 'chain', 'hostnames'];

/**
 * "Upload certificate" (POST …/ssl/manual-certificate): the PEM texts and optional names. Each
 * refusal is shown at the field it names; after an upload every field is emptied, so the private
 * key is never shown again (the API never returns it).
 */
export function UploadCertificate({ domain, onUploaded }: { domain: Domain; onUploaded: () => void }) {
  const [form, setForm] = useState(EMPTY);
  const [uploaded, setUploaded] = useState<Certificate>();
  const { failure, busy, submit, changed } = useSubmit(async () => {
    setUploaded(undefined);
    const body = { certificate: form.certificate, private_key: form.private_key, chain: form.chain || undefined, hostnames: hostnamesOf(form.hostnames) };
    const { data } = await api<{ data: Certificate }>('POST', `/api/v1/domains/${domain.id}/ssl/manual-certificate`, body);
    setForm(EMPTY);
    setUploaded(data);
    onUploaded();
  });
  const shown = atHostnamesInput(failure);
  const set = (field: keyof typeof EMPTY) => (event: { currentTarget: { value: string } }) => (setForm({ ...form, [field]: event.currentTarget.value }), changed(field));
  const text = (field: keyof typeof EMPTY, required: boolean) => ({ ...describedBy(`ssl-upload-${field}`, shown?.field === field), name: field, value: form[field], required, spellcheck: false, autocomplete: 'off', onInput: set(field) });
  return (
    <form class="upload-form" onSubmit={submit} aria-label="Upload certificate">
      <FormField id="ssl-upload-certificate" label="Certificate (PEM)" help="The leaf certificate only: -----BEGIN CERTIFICATE----- …" failure={shown} field="certificate">
        <textarea {...text('certificate', true)} />
      </FormField>
      <FormField id="ssl-upload-private_key" label="Private key (PEM)" help="Unencrypted; RSA of 2048 bits or more, or ECDSA P-256 or P-384. Stored encrypted and never shown again." failure={shown} field="private_key">
        <textarea {...text('private_key', true)} />
      </FormField>
      <FormField id="ssl-upload-chain" label="Chain (PEM, optional)" help="The intermediates, from the certificate's issuer upwards." failure={shown} field="chain">
        <textarea {...text('chain', false)} />
      </FormField>
      <FormField id="ssl-upload-hostnames" label="Hostnames it must cover (optional)" help="Separated by commas or spaces; by default the domain's proxied names (the apex when none is proxied)." failure={shown} field="hostnames">
        <input {...text('hostnames', false)} />
      </FormField>
      <div class="actions">
        <button type="submit" disabled={busy}>
          Upload certificate
        </button>
        {uploaded ? <span role="status">Uploaded: the certificate for {uploaded.hostnames.join(', ')} is now in force.</span> : null}
      </div>
      <FormFailure failure={shown} fields={FIELDS} />
    </form>
  );
}

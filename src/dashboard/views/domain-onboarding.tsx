import { useState } from 'preact/hooks';
import { type ApiFailure, api } from '../api.js';
import { Failure, When } from '../components.js';
import { failureOf, useSubmit } from '../use-submit.js';
import type { Domain } from './domains.js';

/** What a domain's answer says about its delegation (SPEC.md, Domain status). */
export type Delegation = {
  expected_nameservers: string[];
  observed_nameservers: string[];
  nameservers_checked_at: number | null;
  nameservers_check_error: string | null;
  activation_override: boolean;
};

/** The answer of POST /nameservers/verify. */
type Check = { status: string; previous_status: string; observed: string[]; missing: string[]; unexpected: string[]; delegated: boolean | null; lookup_error: string | null };

// Its name says what it copies ("Copy ns1.…"), the visible text stays short.
function CopyButton({ text, label, onCopied, children = 'Copy' }: { text: string; label: string; onCopied: (message: string) => void; children?: string }) {
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      onCopied(`Copied ${text.split('\n').join(', ')}.`);
    } catch {
      onCopied(`Could not copy ${label}: select it and copy it by hand.`);
    }
  }
  return (
    <button type="button" class="small secondary" onClick={copy}>
      {children}
      <span class="visually-hidden"> {label}</span>
    </button>
  );
}

/** The nameservers to set at the registrar, each copyable, and all of them at once. */
function NameserversToSet({ nameservers }: { nameservers: string[] }) {
  const [copied, setCopied] = useState('');
  if (nameservers.length === 0) {
    return <p class="failure">No platform nameserver is configured: set the settings group nameservers (hostnames) first.</p>;
  }
  return (
    <>
      <ul class="nameservers" aria-label="Nameservers to set">
        {nameservers.map((name) => (
          <li key={name}>
            <code>{name}</code> <CopyButton text={name} label={name} onCopied={setCopied} />
          </li>
        ))}
      </ul>
      <CopyButton text={nameservers.join('\n')} label="nameservers" onCopied={setCopied}>
        Copy all
      </CopyButton>{' '}
      <span role="status" class="muted">
        {copied}
      </span>
    </>
  );
}

function names(list: string[]): string {
  return list.join(', ');
}

/** What the last check saw, from the domain's own answer (kept between visits). */
function LastCheck({ domain }: { domain: Delegation }) {
  if (domain.nameservers_checked_at === null) return <p>Not checked yet: the platform checks soon after a domain is added, then regularly; "Check now" checks at once.</p>;
  const seen = domain.observed_nameservers;
  const when = <When at={domain.nameservers_checked_at} />;
  if (domain.nameservers_check_error) {
    return (
      <p>
        Last checked {when}: the delegation could not be seen ({domain.nameservers_check_error}).{seen.length ? ` An earlier check saw ${names(seen)}.` : ''}
      </p>
    );
  }
  return (
    <p>
      Last checked {when}: {seen.length ? `the domain is delegated to ${names(seen)}.` : 'no nameserver is delegated for the domain.'}
    </p>
  );
}

/** The outcome of "Check now" in words. */
function CheckOutcome({ check }: { check: Check }) {
  if (check.lookup_error) return <>The check could not see the delegation ({check.lookup_error}); nothing changed. Try again later.</>;
  if (check.delegated && check.previous_status !== check.status) return <>Delegation verified: the domain is now {check.status}.</>;
  if (check.delegated) return <>Delegation verified.</>;
  return (
    <>
      Not delegated yet.
      {check.missing.length ? ` Missing at the registrar: ${names(check.missing)}.` : ''}
      {check.unexpected.length ? ` To remove there: ${names(check.unexpected)}.` : ''} A change at the registrar can take up to 48 hours to be seen.
    </>
  );
}

function CheckNow({ domainId, onChecked }: { domainId: string; onChecked: () => void }) {
  const [check, setCheck] = useState<Check>();
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);
  async function run() {
    setBusy(true);
    try {
      setCheck((await api<{ data: Check }>('POST', `/api/v1/domains/${encodeURIComponent(domainId)}/nameservers/verify`)).data);
      setFailure(undefined);
    } catch (error) {
      setFailure(failureOf(error));
    } finally {
      setBusy(false);
      onChecked();
    }
  }
  return (
    <div class="check-now">
      <button type="button" onClick={run} disabled={busy}>
        {busy ? 'Checking…' : 'Check now'}
      </button>
      <p role="status" class="check-outcome">
        {check ? <CheckOutcome check={check} /> : null}
      </p>
      <Failure failure={failure} />
    </div>
  );
}

/** A refusal of activation in words: the delegation not seen names what to do next; anything else as the API said it. */
function ActivationRefused({ failure }: { failure?: ApiFailure }) {
  const shown = failure?.field === 'override';
  return (
    <p id="override-error" class="field-error" role={shown ? 'alert' : undefined}>
      {shown ? 'Not activated: the delegation does not match yet. Set the nameservers above at the registrar and check again, or tick the override to activate anyway.' : null}
    </p>
  );
}

/** Activation: by the API's own check, or with override before the delegation is seen (explained). */
function Activate({ domainId, onActivated, onRefused }: { domainId: string; onActivated: () => void; onRefused: () => void }) {
  const [override, setOverride] = useState(false);
  const { failure, busy, submit } = useSubmit(async () => {
    await api('POST', `/api/v1/domains/${encodeURIComponent(domainId)}/activate`, { override }).catch((error: unknown) => {
      // Activation checked the delegation before refusing: what it saw is the domain's last check now.
      onRefused();
      throw error;
    });
    onActivated();
  });
  return (
    <form class="activate" onSubmit={submit} aria-label="Activate">
      <label class="check">
        <input type="checkbox" name="override" checked={override} onChange={(event) => setOverride(event.currentTarget.checked)} aria-describedby="override-help override-error" />
        Activate without a verified delegation (override)
      </label>
      <p id="override-help" class="muted">
        Without override, activation checks the delegation first and succeeds only when it matches. With override the domain is active at once: its records are published and the edges serve it, but visitors reach them only once the registrar points to the nameservers above. The checks go on; the domain stays active until a check sees the delegation, and only a later move away sends it back to pending.
      </p>
      <ActivationRefused failure={failure} />
      {failure && failure.field !== 'override' ? <Failure failure={failure} /> : null}
      <button type="submit" disabled={busy}>
        {override ? 'Activate anyway' : 'Activate'}
      </button>
    </form>
  );
}

/** Where the domain stands, and what to do at the registrar. */
function Intro({ domain }: { domain: Domain & Delegation }) {
  if (domain.status === 'pending_nameserver') return <p>This domain is pending: at your registrar, replace its nameservers with these, then check.</p>;
  if (domain.status === 'disabled') return <p>This domain is disabled: set its status to pending_nameserver through the API before activating it. Its nameservers at the registrar:</p>;
  if (domain.activation_override) return <p>This domain was activated by override: its delegation has not been seen yet. Set these nameservers at your registrar:</p>;
  return <p>The domain is active. Its nameservers:</p>;
}

/**
 * Onboarding a domain that is not served through a verified delegation yet: the nameservers to set
 * at the registrar, what the last check saw, "Check now" and activation. An active domain whose
 * delegation was seen shows nothing, unless a check or activation on this visit made it so (to say so).
 */
export function Onboarding({ domain, onChange }: { domain: Domain & Delegation; onChange: () => void }) {
  const [acted, setActed] = useState(false);
  const changed = () => {
    setActed(true);
    onChange();
  };
  if (domain.status === 'active' && !domain.activation_override && !acted) return null;
  return (
    <section class="onboarding" aria-labelledby="onboarding-title">
      <h2 id="onboarding-title">Nameservers</h2>
      <Intro domain={domain} />
      <NameserversToSet nameservers={domain.expected_nameservers} />
      <LastCheck domain={domain} />
      <CheckNow domainId={domain.id} onChecked={changed} />
      {domain.status === 'pending_nameserver' ? <Activate domainId={domain.id} onActivated={changed} onRefused={onChange} /> : null}
    </section>
  );
}

import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api.js';
import { FormFailure } from '../field-error.js';
import type { Owner } from '../ownership.js';
import { useSubmit } from '../use-submit.js';
import type { Domain } from './domains.js';

/** A git-owned domain is deleted by removing its file (docs/gitops.md, delete_removed_domains), not here. */
function DeletedThroughGit({ owner }: { owner: Owner }) {
  return (
    <p class="note">
      This domain is described in <code>{owner.file}</code> of {owner.repo}, so it is deleted through git: remove that file in a pull request. With <code>delete_removed_domains: true</code> the controller then deletes the domain; otherwise it reports it as orphaned, and it can be deleted here once no repository describes it.
    </p>
  );
}

/**
 * The dialog that deletes a domain: its Delete button stays disabled until the domain's name is
 * typed; once deleted, the domain list is shown.
 */
function ConfirmDelete({ domain, dialog }: { domain: Domain; dialog: { current: HTMLDialogElement | null } }) {
  const { route } = useLocation();
  const [typed, setTyped] = useState('');
  const { failure, busy, submit } = useSubmit(async () => {
    await api('DELETE', `/api/v1/domains/${encodeURIComponent(domain.id)}`);
    dialog.current?.close();
    route('/domains');
  });
  return (
    <dialog ref={dialog} aria-labelledby="delete-dialog-title" onClose={() => setTyped('')}>
      <form onSubmit={submit} class="confirm-delete">
        <h2 id="delete-dialog-title">Delete {domain.domain}?</h2>
        <p>Its records, origins, rules, cache and SSL settings go with it, and its zone leaves the platform's nameservers. This cannot be undone.</p>
        <label>
          Type {domain.domain} to confirm
          <input name="confirm" value={typed} onInput={(event) => setTyped(event.currentTarget.value)} autocomplete="off" autocapitalize="off" spellcheck={false} />
        </label>
        <FormFailure failure={failure} fields={[]} />
        <div class="actions">
          <button type="submit" class="danger" disabled={typed.trim() !== domain.domain || busy}>
            Delete {domain.domain}
          </button>
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** Deleting the domain, at the foot of its page: through a typed confirmation, or through git for an owned domain. */
export function DeleteDomain({ domain, owner }: { domain: Domain; owner?: Owner }) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <section class="danger-zone" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete this domain</h2>
      {owner ? (
        <DeletedThroughGit owner={owner} />
      ) : (
        <>
          <p>Deleting removes the domain with everything configured for it.</p>
          <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
            Delete domain
          </button>
          <ConfirmDelete domain={domain} dialog={dialog} />
        </>
      )}
    </section>
  );
}

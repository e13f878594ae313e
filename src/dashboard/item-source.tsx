import { Badge } from './components.js';
import type { Owner } from './ownership.js';

/**
 * Where an item of a domain comes from, as its row's last cell: the file of the repository that
 * owns it (a button that shows its YAML for a pull request), or the API with Edit and Delete
 * ("not in git" when the domain is git-owned but its file does not list the item).
 */
export function SourceCell({ item, owner, ownedByGit, onYaml, onEdit, onDelete }: { item: string; owner?: Owner; ownedByGit: boolean; onYaml: () => void; onEdit: () => void; onDelete: () => void }) {
  if (ownedByGit) {
    return (
      <button type="button" class="link" onClick={onYaml} aria-label={`YAML of ${item} for ${owner!.file}`}>
        <Badge tone="git">{owner!.file}</Badge>
      </button>
    );
  }
  return (
    <span class="row-actions">
      {owner ? <Badge tone="warn">not in git</Badge> : 'API'}
      <button type="button" class="small" onClick={onEdit} aria-label={`Edit ${item}`}>
        Edit
      </button>
      <button type="button" class="small danger" onClick={onDelete} aria-label={`Delete ${item}`}>
        Delete
      </button>
    </span>
  );
}

/**
 * An owned item's YAML, to paste under `section:` in the owner's file and propose in a pull request.
 * The line is not wrapped and scrolls sideways on a narrow screen, so it takes the keyboard focus.
 */
export function YamlSnippet({ yaml, section, owner }: { yaml?: string; section: string; owner?: Owner }) {
  if (!yaml || !owner) return null;
  return (
    <div class="snippet" role="region" aria-label="YAML for a pull request">
      <p>
        Change it under <code>{section}:</code> in <code>{owner.file}</code> and open a pull request:
      </p>
      <pre tabIndex={0}>
        <code>{yaml}</code>
      </pre>
      <button type="button" onClick={() => navigator.clipboard?.writeText(yaml)}>
        Copy
      </button>
    </div>
  );
}

import { api } from '../api.js';
import { settingRules } from '../api-schemas.js';
import { Failure, Loading } from '../components.js';
import { useApi } from '../use-api.js';
import { ValuesForm } from '../values-form.js';

/** Every settings group with its values (the API's defaults filled in), each a form that saves what changed. */
export function SettingsView() {
  const settings = useApi<Record<string, Record<string, unknown>>>('/api/v1/settings');
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <p class="muted">
        Change a group with <code>PATCH /api/v1/settings/&lt;group&gt;</code>, or in <code>settings/&lt;group&gt;.yaml</code> of the GitOps repository when it has that file.
      </p>
      <Failure failure={settings.failure} />
      <Loading when={settings.loading && !settings.data} />
      {Object.entries(settings.data ?? {}).map(([group, values]) => (
        <div class="card" key={group}>
          <h2>{group}</h2>
          <ValuesForm
            label={`Settings: ${group}`}
            values={values}
            fieldOf={(key) => `${group}.${key}`}
            fields={settingRules(group)}
            onSave={async (changed) => {
              await api('PATCH', `/api/v1/settings/${group}`, changed);
              settings.reload();
            }}
          />
        </div>
      ))}
    </section>
  );
}

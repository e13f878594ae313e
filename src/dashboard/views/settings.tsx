import { Failure, Loading } from '../components.js';
import { useApi } from '../use-api.js';

/** Every settings group with its values (the API's defaults filled in). */
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
          <dl class="settings">
            {Object.entries(values).map(([key, value]) => (
              <div key={key}>
                <dt>{key.replace(/_/g, ' ')}</dt>
                <dd>{typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}</dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
    </section>
  );
}

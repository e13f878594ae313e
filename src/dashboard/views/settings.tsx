import { Failure, Loading, Values } from '../components.js';
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
          <Values values={values} />
        </div>
      ))}
    </section>
  );
}

import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Failure } from '../components.js';
import { usePageTitle } from '../page-title.js';
import { saveSession } from '../session.js';
import { useSubmit } from '../use-submit.js';

type LoginAnswer = { data: { token: string; expires_at: number; user: { username: string } } };

/** The admin login form: POST /api/v1/admin/login, the session kept for this tab. */
export function Login({ onLogin, expired }: { onLogin: () => void; expired: boolean }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { failure, busy, submit } = useSubmit(async () => {
    const { data } = await api<LoginAnswer>('POST', '/api/v1/admin/login', { username, password });
    saveSession({ token: data.token, username: data.user.username, expires_at: data.expires_at });
    onLogin();
  });
  usePageTitle('Log in');

  return (
    <main class="login">
      <h1>CDN control plane</h1>
      {expired ? <p role="status">Your session ended. Log in again.</p> : null}
      <form onSubmit={submit}>
        <label>
          Username
          <input name="username" autoComplete="username" required value={username} onInput={(event) => setUsername(event.currentTarget.value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>
          Log in
        </button>
        <Failure failure={failure} />
      </form>
    </main>
  );
}

const KEY = 'cdn.session';

type Stored = { token: string; username: string; expires_at: number };

function stored(): Stored | undefined {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) ?? 'null') ?? undefined;
  } catch {
    return undefined;
  }
}

/** The admin session token, while it has not expired. */
export function sessionToken(): string | undefined {
  const session = stored();
  if (!session || session.expires_at * 1000 <= Date.now()) return undefined;
  return session.token;
}

/** A session is kept but its time is up: the app returns to the login page. */
export function sessionExpired(): boolean {
  const session = stored();
  return session !== undefined && session.expires_at * 1000 <= Date.now();
}

export function sessionUser(): string | undefined {
  return sessionToken() ? stored()?.username : undefined;
}

export function saveSession(session: Stored): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

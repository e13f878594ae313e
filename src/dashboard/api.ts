import { clearSession, sessionExpired, sessionToken } from './session.js';

/** An answer of the API that was not 2xx, in the API's own words (`error`, `field`, `detail`). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly field?: string,
    readonly detail?: string,
  ) {
    super(detail ? `${error}: ${detail}` : error);
  }
}

/** Called when the session is gone (expired or logged out elsewhere): the app shows the login page. */
let onSessionLost: (() => void) | undefined;
export function whenSessionLost(handler: () => void): void {
  onSessionLost = handler;
}

async function failureOf(response: Response): Promise<ApiFailure> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: string; field?: string; detail?: string };
    return new ApiFailure(response.status, body.error ?? response.statusText, body.field, body.detail);
  } catch {
    return new ApiFailure(response.status, `the server answered ${response.status} ${response.statusText}`);
  }
}

function endSession(): void {
  clearSession();
  onSessionLost?.();
}

/** Calls the core's REST API with the admin session; a 401, or a session whose time is up, ends it. */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  if (sessionExpired()) {
    endSession();
    throw new ApiFailure(401, 'your session ended', undefined, 'log in again');
  }
  const headers: Record<string, string> = {};
  const token = sessionToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiFailure(0, 'the core API could not be reached', undefined, 'check that `cdn core` is running');
  }
  if (response.status === 401 && token) endSession();
  if (!response.ok) throw await failureOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** `data` of a GET. */
export async function get<T = unknown>(path: string): Promise<T> {
  return (await api<{ data: T }>('GET', path)).data;
}

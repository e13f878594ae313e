// `scheme://userinfo@host…`: the user information runs to the last `@` before the path.
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)@/gi;

/** The user name and password a URL carries, percent-decoded. */
export type UrlCredentials = { username: string; password: string };

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// SSH keeps its user, the login name and never a secret (`ssh://git@host/…`), and loses a password;
// every other scheme loses all of it (`https://x-access-token:…@host/…`, `https://<token>@host/…`).
function keptUser(scheme: string, userinfo: string): string {
  if (!/ssh/i.test(scheme)) return '';
  const user = userinfo.split(':')[0];
  return user ? `${user}@` : '';
}

/**
 * `text` with the credentials of every URL in it removed: what may be shown, logged or stored
 * (`https://user:token@host/repo.git` → `https://host/repo.git`). Paths and scp-like addresses
 * (`git@host:repo.git`) carry no secret and are left as they are.
 */
export function withoutUrlCredentials(text: string): string {
  return text.replace(USERINFO, (_, scheme: string, userinfo: string) => `${scheme}${keptUser(scheme, userinfo)}`);
}

/** The credentials `url` carries in its user information, if any (SSH logins are not credentials). */
export function urlCredentials(url: string): UrlCredentials | undefined {
  const match = new RegExp(`^${USERINFO.source}`, 'i').exec(url);
  if (!match || /ssh/i.test(match[1])) return undefined;
  const [username, ...password] = match[2].split(':');
  return { username: decoded(username), password: decoded(password.join(':')) };
}

/** The host of a Host header: lower case, without port or trailing dot; '' when absent or not a plausible host name or address. */
export function hostOf(header: string | undefined): string {
  if (!header) return '';
  let host = header;
  if (host.charCodeAt(0) === 91 /* [ */) {
    const close = host.indexOf(']');
    return close === -1 ? '' : host.slice(0, close + 1).toLowerCase();
  }
  const colon = host.indexOf(':');
  if (colon !== -1) host = host.slice(0, colon);
  if (host.endsWith('.')) host = host.slice(0, -1);
  host = host.toLowerCase();
  return host.length <= 253 && /^[a-z0-9_.*-]*$/.test(host) ? host : '';
}

/** How many Host header lines a request carried (Node keeps only the first; RFC 9112 §3.2 wants a 400 for more). */
export function hostLines(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/** Path and query of a request target (origin-form, or absolute-form as sent to proxies); undefined when it is neither. */
export function splitTarget(url: string): { path: string; query: string; host?: string } | undefined {
  if (url.charCodeAt(0) !== 47 /* / */) {
    if (!/^https?:\/\//i.test(url)) return undefined;
    try {
      const parsed = new URL(url);
      return { path: parsed.pathname, query: parsed.search.slice(1), host: parsed.host };
    } catch {
      return undefined;
    }
  }
  const mark = url.indexOf('?');
  return mark === -1 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) };
}

// The parts of an absolute http(s) URL as a request target (RFC 9112 §3.2.2), read from the
// text as written: the edge's door and the core's rule tester split targets the same way.
const ABSOLUTE_FORM = /^https?:\/\//i;

/**
 * `http://authority/path?query` as its authority, unchecked (the host check refuses userinfo,
 * `@` being no host character), and the rest as an origin-form target (`/` when the URL has no
 * path); undefined when `url` is not an absolute http(s) URL.
 */
export function absoluteForm(url: string): { authority: string; target: string } | undefined {
  if (!ABSOLUTE_FORM.test(url)) return undefined;
  const start = url.indexOf('//') + 2;
  let end = start;
  while (end < url.length && url[end] !== '/' && url[end] !== '?') end++;
  const rest = url.slice(end);
  return { authority: url.slice(start, end), target: rest.charCodeAt(0) === 47 ? rest : `/${rest}` };
}

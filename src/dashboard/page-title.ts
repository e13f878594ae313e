import { useEffect } from 'preact/hooks';

/** Names what the page shows in its title (`shop.example · DNS records · CDN control plane`): tabs, history and screen readers read it. */
export function setPageTitle(name: string): void {
  document.title = `${name} · CDN control plane`;
}

/** Sets the page's title to `name` whenever it changes (a domain's name once it has loaded). */
export function usePageTitle(name: string): void {
  useEffect(() => setPageTitle(name), [name]);
}

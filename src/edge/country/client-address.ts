import type { IncomingHttpHeaders } from 'node:http';
import { canonicalIp } from '../../shared/ip-address.js';
import { isCountry } from '../../shared/geo/regions.js';
import { trustedProxyMatcher } from './trusted-proxies.js';

const MAX_FORWARDED_HOPS = 32;

/** Who the client is, as far as the edge may believe its upstream. */
export type ClientResolver = {
  /** The client address: from X-Forwarded-For when the peer is a trusted proxy (the right-most address that is not one), else the peer. */
  clientIp(headers: IncomingHttpHeaders, peer: string): string;
  /** The country a trusted upstream stated (the first of CDN_EDGE_COUNTRY_HEADERS present), or undefined. */
  headerCountry(headers: IncomingHttpHeaders, peer: string): string | undefined;
};

// The last `max` comma-separated entries of `text`, right-most first, found from the end
// (a split from the left would keep the entries a client wrote and drop the proxies').
function lastHops(text: string, max: number): string[] {
  const hops: string[] = [];
  let end = text.length;
  for (;;) {
    const comma = end > 0 ? text.lastIndexOf(',', end - 1) : -1;
    hops.push(text.slice(comma + 1, end));
    if (comma < 0 || hops.length === max) return hops;
    end = comma;
  }
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Builds the resolver from CDN_EDGE_TRUSTED_PROXIES and CDN_EDGE_COUNTRY_HEADERS. */
export function createClientResolver(options: { trustedProxies: string; countryHeaders: string }): ClientResolver {
  const trusted = trustedProxyMatcher(options.trustedProxies);
  const headers = options.countryHeaders
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  return {
    clientIp(requestHeaders, peer) {
      if (!trusted(peer)) return peer;
      const forwarded = requestHeaders['x-forwarded-for'];
      if (!forwarded) return peer;
      const hops = lastHops(Array.isArray(forwarded) ? forwarded.join(',') : forwarded, MAX_FORWARDED_HOPS);
      for (let index = 0; index < hops.length; index++) {
        const hop = canonicalIp(hops[index].trim());
        if (hop === undefined) return peer;
        if (!trusted(hop) || index === hops.length - 1) return hop;
      }
      return peer;
    },
    headerCountry(requestHeaders, peer) {
      if (headers.length === 0 || !trusted(peer)) return undefined;
      for (const name of headers) {
        const value = headerValue(requestHeaders, name)?.trim().toUpperCase();
        if (value !== undefined) return value.length === 2 && isCountry(value) ? value : undefined;
      }
      return undefined;
    },
  };
}

import { Resolver } from 'node:dns/promises';
import type { Config } from '../../config/load.js';
import { splitList } from '../../config/load.js';

/** What a delegation lookup saw: the NS set, or why it could not tell. */
export type Delegation = { known: true; nameservers: string[] } | { known: false; error: string };
export type DelegationLookup = (apex: string) => Promise<Delegation>;

// Answers that prove the delegation: the name has no NS records, or does not exist.
const DEFINITIVE_EMPTY = new Set(['ENODATA', 'ENOTFOUND']);

/** A lookup of the NS records of an apex through the configured resolvers (or the system's). */
export function delegationLookup(config: Config): DelegationLookup {
  const resolver = new Resolver({ timeout: config.nameserverLookupTimeoutMs, tries: 1 });
  const servers = splitList(config.nameserverResolvers);
  if (servers.length > 0) resolver.setServers(servers);
  return async (apex) => {
    try {
      const found = await resolver.resolveNs(apex);
      return { known: true, nameservers: normalizeNameservers(found) };
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ERROR';
      if (DEFINITIVE_EMPTY.has(code)) return { known: true, nameservers: [] };
      return { known: false, error: `NS lookup of ${apex} failed: ${code}` };
    }
  };
}

/** Lower-case, no trailing dot, sorted, without duplicates. */
export function normalizeNameservers(names: string[]): string[] {
  return [...new Set(names.map((name) => name.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean))].sort();
}

export type DelegationComparison = { expected: string[]; observed: string[]; matched: string[]; missing: string[]; unexpected: string[]; delegated: boolean };

/** Delegated means the observed NS set is exactly the expected set (extra nameservers would leave part of the traffic elsewhere). */
export function compareDelegation(expected: string[], observed: string[]): DelegationComparison {
  const want = normalizeNameservers(expected);
  const seen = normalizeNameservers(observed);
  const matched = want.filter((name) => seen.includes(name));
  const missing = want.filter((name) => !seen.includes(name));
  const unexpected = seen.filter((name) => !want.includes(name));
  return { expected: want, observed: seen, matched, missing, unexpected, delegated: want.length > 0 && missing.length === 0 && unexpected.length === 0 };
}

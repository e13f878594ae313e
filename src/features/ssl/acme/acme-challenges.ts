// The challenges of an order while the CA validates them: HTTP-01 key authorizations the edges
// answer (they ask the core on a miss: docs/ssl.md, "HTTP-01"), DNS-01 TXT values the DNS sync
// publishes in the domain's zone. Rows live from before the CA is told to look until it has looked.
import type { Config } from '../../../config/load.js';
import type { Db } from '../../../db/client.js';
import { markConfigDirty } from '../../../publish/dirty.js';
import { desiredZone, zoneDigest } from '../../../publish/dns/desired-zone.js';
import { loadZoneSources } from '../../../publish/dns/zone-sources.js';

export type ChallengeType = 'http-01' | 'dns-01';

/** How long a challenge row is answered at most (an order that stalls leaves nothing behind for long). */
const CHALLENGE_TTL_MS = 15 * 60 * 1000;
const DNS_WAIT_MS = 60_000;
const DNS_POLL_MS = 300;

/**
 * The challenge a name gets (docs/ssl.md, "Which challenge a name gets"): a wildcard always
 * dns-01; otherwise the one the request asked for; otherwise http-01 for a name the edges serve
 * (a proxied record) and dns-01 for any other.
 */
export function challengeFor(name: string, requested: ChallengeType | null, proxied: Set<string>): ChallengeType {
  if (name.startsWith('*.')) return 'dns-01';
  if (requested) return requested;
  return proxied.has(name) ? 'http-01' : 'dns-01';
}

/** The TXT owner validated for `name` (a wildcard is validated at its base name). */
export function dnsChallengeOwner(name: string): string {
  return `_acme-challenge.${name.replace(/^\*\./, '')}`;
}

export type PendingChallenge = { token: string; type: ChallengeType; hostname: string; value: string };

/** Stores the challenges of one order; a DNS-01 one marks the config dirty so the DNS sync publishes it. */
export async function storeChallenges(db: Db, domainId: string, jobId: string, challenges: PendingChallenge[], now = new Date()): Promise<void> {
  await db.acmeChallenge.createMany({
    data: challenges.map((challenge) => ({ token: challenge.token, domain_id: domainId, job_id: jobId, type: challenge.type, hostname: challenge.hostname, key_authorization: challenge.value, expires_at: new Date(now.getTime() + CHALLENGE_TTL_MS) })),
  });
  if (challenges.some((challenge) => challenge.type === 'dns-01')) await markConfigDirty(db, 'acme dns-01 challenge');
}

/** Removes the challenges of a job (after validation, whatever its outcome); the TXT records leave the zone with the next sync. */
export async function removeChallenges(db: Db, jobId: string): Promise<void> {
  const { count } = await db.acmeChallenge.deleteMany({ where: { job_id: jobId } });
  if (count > 0) await markConfigDirty(db, 'acme challenge removed');
}

/** The key authorization an edge answers for `token` on `host`, while the challenge lives. */
export async function httpChallengeAnswer(db: Db, token: string, host: string, now = new Date()): Promise<string | undefined> {
  const row = await db.acmeChallenge.findFirst({ where: { token, type: 'http-01', hostname: host.toLowerCase(), expires_at: { gt: now } }, select: { key_authorization: true } });
  return row?.key_authorization;
}

// The digest of the domain's zone as desired now (with every challenge in flight, of any job).
async function desiredDigest(db: Db, config: Config, domainId: string): Promise<string> {
  const source = (await loadZoneSources(db, config)).find((zone) => zone.domainId === domainId);
  if (!source) throw new Error('the domain has no zone to publish the challenge in');
  return zoneDigest(desiredZone(source));
}

/**
 * Waits until PowerDNS holds the domain's zone as it is desired now (the DNS sync wrote it, cache
 * flushed), so the CA finds the TXT records; throws after a minute naming why. The desired zone is
 * read again each time: other jobs of the domain add and remove their challenges meanwhile.
 */
export async function waitForZonePublished(db: Db, config: Config, domainId: string): Promise<void> {
  if (!config.powerdnsApiUrl) throw new Error('dns-01 needs DNS publishing to PowerDNS: CDN_POWERDNS_API_URL is not set');
  const deadline = Date.now() + DNS_WAIT_MS;
  for (;;) {
    const state = await db.dnsZoneState.findUnique({ where: { domain_id: domainId }, select: { published_hash: true, last_error: true } });
    if (state?.published_hash && state.published_hash === (await desiredDigest(db, config, domainId))) return;
    if (Date.now() > deadline) throw new Error(`the challenge TXT records were not published to PowerDNS within ${DNS_WAIT_MS / 1000} s${state?.last_error ? `: ${state.last_error}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, DNS_POLL_MS));
  }
}

// One certificate order against the CA: the authorizations' challenges set up where the CA will
// look, validated, removed, then the order finalized with a fresh key's CSR.
import { generateKeyPairSync } from 'node:crypto';
import acme from 'acme-client';
import type { Config } from '../../../config/load.js';
import type { Db } from '../../../db/client.js';
import { AcmeProblem, ChallengeFailed } from './acme-problem.js';
import { challengeFor, dnsChallengeOwner, removeChallenges, storeChallenges, waitForZonePublished, type ChallengeType, type PendingChallenge } from './acme-challenges.js';

/** `replaces`: the RFC 9773 identifier of the certificate a renewal replaces, for a CA that offers renewal information. */
export type OrderRequest = { jobId: string; domainId: string; hostnames: string[]; challenge: ChallengeType | null; proxied: Set<string>; replaces?: string };
export type IssuedCertificate = { certificatePem: string; chainPem: string | null; privateKeyPem: string };

type Prepared = { pending: PendingChallenge; challenge: { url: string; type: string; token: string } };

async function prepare(client: acme.Client, authorization: acme.Authorization, request: OrderRequest): Promise<Prepared | undefined> {
  if (authorization.status === 'valid') return undefined;
  const name = `${authorization.wildcard ? '*.' : ''}${authorization.identifier.value}`;
  const type = challengeFor(name, request.challenge, request.proxied);
  const challenge = authorization.challenges.find((offered) => offered.type === type);
  if (!challenge) throw new ChallengeFailed(`the CA offers no ${type} challenge for ${name}`);
  const value = await client.getChallengeKeyAuthorization(challenge);
  const hostname = type === 'dns-01' ? dnsChallengeOwner(name) : name;
  // A DNS-01 row is keyed by its own id: the CA's token is not what the TXT record holds.
  const token = type === 'dns-01' ? `dns-${request.jobId}-${challenge.token}` : challenge.token;
  return { pending: { token, type, hostname, value }, challenge };
}

async function validate(client: acme.Client, prepared: Prepared[]): Promise<void> {
  for (const { challenge, pending } of prepared) {
    await client.completeChallenge(challenge as never);
    try {
      await client.waitForValidStatus(challenge as never);
    } catch (error) {
      throw new ChallengeFailed(`${pending.type} for ${pending.hostname}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function splitBundle(bundle: string): { certificatePem: string; chainPem: string | null } {
  const [leaf, ...chain] = acme.crypto.splitPemChain(bundle);
  return { certificatePem: `${leaf.trim()}\n`, chainPem: chain.length ? `${chain.map((pem) => pem.trim()).join('\n')}\n` : null };
}

const ALREADY_REPLACED = 'urn:ietf:params:acme:error:alreadyReplaced';

// RFC 9773 section 5: a renewal names the certificate it replaces, so the CA can let it through
// its limits; when the CA says that certificate was replaced already (a renewal that was issued
// but not stored), the order goes again without the claim.
export async function createOrder(client: Pick<acme.Client, 'createOrder'>, request: OrderRequest): Promise<acme.Order> {
  const identifiers = request.hostnames.map((value) => ({ type: 'dns', value }));
  if (!request.replaces) return client.createOrder({ identifiers });
  try {
    return await client.createOrder({ identifiers, replaces: request.replaces } as Parameters<acme.Client['createOrder']>[0]);
  } catch (error) {
    if (error instanceof AcmeProblem && error.type === ALREADY_REPLACED) return client.createOrder({ identifiers });
    throw error;
  }
}

/** Orders a certificate for the request's names and returns it with its new ECDSA P-256 key. */
export async function orderCertificate(db: Db, config: Config, client: acme.Client, request: OrderRequest): Promise<IssuedCertificate> {
  const order = await createOrder(client, request);
  const authorizations = await client.getAuthorizations(order);
  const prepared = (await Promise.all(authorizations.map((authorization) => prepare(client, authorization, request)))).filter((item): item is Prepared => item !== undefined);
  try {
    await storeChallenges(db, request.domainId, request.jobId, prepared.map((item) => item.pending));
    if (prepared.some((item) => item.pending.type === 'dns-01')) await waitForZonePublished(db, config, request.domainId);
    await validate(client, prepared);
  } finally {
    await removeChallenges(db, request.jobId);
  }
  const privateKeyPem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const [, csr] = await acme.crypto.createCsr({ commonName: request.hostnames[0], altNames: request.hostnames }, privateKeyPem);
  const finalized = await client.finalizeOrder(order, csr);
  return { ...splitBundle(await client.getCertificate(finalized)), privateKeyPem };
}

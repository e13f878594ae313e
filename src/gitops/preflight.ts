import { readFileSync } from 'node:fs';
import { hasControlCharacter } from '../shared/control-characters.js';
import type { DesiredState, LoadedDomain } from './load.js';
import type { Item } from './model.js';
import type { Plan } from './plan.js';
import type { Problem } from './problems.js';
import { resolveSecret, unsetMessage, unsetVariables } from './secrets.js';

type Bounds = { minLength: number; maxLength: number };
let secretBounds: Bounds | undefined;

// The API's bounds of origin_shield_secret, read from its own request schema.
function boundsOfSecret(): Bounds {
  secretBounds ??= JSON.parse(readFileSync(new URL('../../schemas/api/domain-create.json', import.meta.url), 'utf8')).properties.origin_shield_secret as Bounds;
  return secretBounds;
}

/** Why the API would refuse a resolved secret value (its bounds), if it would. */
function secretValueProblem(value: string): string | undefined {
  const { minLength, maxLength } = boundsOfSecret();
  if (value.length < minLength || value.length > maxLength) return `the resolved secret has ${value.length} characters; the API takes ${minLength} to ${maxLength}`;
  return hasControlCharacter(value) ? 'the resolved secret holds control characters, which the API refuses' : undefined;
}

type SentSecret = { domain: LoadedDomain; secret: string };

// A secret is resolved only when apply sends it: the domain is created, or the secret itself changes.
function sentSecrets(state: DesiredState, plan: Plan): SentSecret[] {
  const sent = new Set(
    plan.domains.filter((domain) => domain.changes.some((change) => change.resource === 'domain' && (change.action === 'create' || change.fields.some((field) => field.field === 'origin_shield_secret')))).map((domain) => domain.domain),
  );
  return state.domains.flatMap((domain) => {
    const secret = domain.spec.origin_shield?.secret;
    return secret !== undefined && sent.has(domain.spec.domain) ? [{ domain, secret }] : [];
  });
}

// Planning only, an unset variable is no problem: the plan shows the secret as (secret) either way.
function secretProblems(state: DesiredState, plan: Plan, env: NodeJS.ProcessEnv, planningOnly: boolean): Problem[] {
  return sentSecrets(state, plan).flatMap(({ domain, secret }) => {
    const missing = unsetVariables(secret, env);
    if (missing.length) return planningOnly ? [] : [domain.yaml.problemAt(['origin_shield', 'secret'], unsetMessage(missing[0]))];
    const problem = secretValueProblem(resolveSecret(secret, env));
    return problem ? [domain.yaml.problemAt(['origin_shield', 'secret'], problem)] : [];
  });
}

/** The `${VAR}`s of the secrets a plan sends that the environment does not set: what `cdn plan` shows as (secret) and apply needs. */
export function unsetSecrets(state: DesiredState, plan: Plan, env: NodeJS.ProcessEnv): string[] {
  return [...new Set(sentSecrets(state, plan).flatMap(({ secret }) => unsetVariables(secret, env)))];
}

function hasAddresses(values: Item | undefined): boolean {
  return ['anycast_ipv4', 'anycast_ipv6'].some((family) => Array.isArray(values?.[family]) && (values[family] as unknown[]).length > 0);
}

// Anycast routing needs addresses on the domain or platform-wide: the repository's anycast settings
// when it has them (they are applied first), else the live ones.
function anycastProblems(state: DesiredState, liveSettings: Record<string, Item>): Problem[] {
  const platform = state.settings.anycast ? { ...liveSettings.anycast, ...state.settings.anycast } : liveSettings.anycast;
  if (hasAddresses(platform)) return [];
  return state.domains.flatMap((domain) => {
    const routing = domain.spec.routing;
    if (routing?.routing_mode !== 'anycast' || hasAddresses(routing as Item)) return [];
    return [domain.yaml.problemAt(['routing', 'routing_mode'], 'anycast routing needs an anycast address: set routing.anycast_ipv4/anycast_ipv6 here, or anycast_ipv4/anycast_ipv6 in settings/anycast.yaml')];
  });
}

/**
 * What the API would refuse that the files alone cannot tell: a `${VAR}` that apply would
 * send but the environment does not set (unless `planningOnly`: `cdn plan` shows it as
 * (secret)), and anycast routing without any anycast address. Found before any write, with
 * the file position, like validation problems.
 */
export function preflightProblems(state: DesiredState, plan: Plan, liveSettings: Record<string, Item>, env: NodeJS.ProcessEnv, planningOnly = false): Problem[] {
  return [...secretProblems(state, plan, env, planningOnly), ...anycastProblems(state, liveSettings)];
}

import { ApiFailure } from '../api.js';

/** Hostnames typed into one input, separated by commas or spaces; undefined when none (the API's default then applies). */
export function hostnamesOf(text: string): string[] | undefined {
  const names = text.split(/[\s,]+/).filter(Boolean);
  return names.length ? names : undefined;
}

/** A refusal of one of the hostnames (`hostnames.2`) as a refusal of the hostnames input, which holds them all. */
export function atHostnamesInput(failure?: ApiFailure): ApiFailure | undefined {
  if (!failure?.field?.startsWith('hostnames.')) return failure;
  return new ApiFailure(failure.status, failure.error, 'hostnames', failure.detail);
}

import { countries, continents } from 'countries-list';

export const CONTINENT_CODES = Object.keys(continents);

/** True for an ISO 3166-1 alpha-2 country code (upper case). */
export function isCountry(code: string): boolean {
  return Object.hasOwn(countries, code);
}

/** True for one of the seven continent codes AF, AN, AS, EU, NA, OC, SA. */
export function isContinent(code: string): boolean {
  return CONTINENT_CODES.includes(code);
}

/** True for an ISO 3166-2 subdivision code of a known country, e.g. US-CA or DE-BY. */
export function isRegion(code: string): boolean {
  const match = /^([A-Z]{2})-[A-Z0-9]{1,3}$/.exec(code);
  return match !== null && isCountry(match[1]);
}

/** The continent of a country, or undefined for an unknown code. */
export function continentOf(country: string): string | undefined {
  return (countries as Record<string, { continent: string }>)[country]?.continent;
}

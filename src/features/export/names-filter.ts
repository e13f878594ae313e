import { ValidationError } from '../../http/errors.js';
import { normalizeApex } from '../../shared/hostnames.js';

/** At most this many apexes in one `domains` filter, so a filtered export stays one bounded query and a short URL. */
export const MAX_EXPORT_NAMES = 100;

const DETAIL = `domains must be 1 to ${MAX_EXPORT_NAMES} apex hostnames separated by commas`;

/** The apexes of `?domains=a.example,b.example` (normalized like a domain's apex), or undefined for every domain; anything malformed is 422 on `domains`. */
export function exportNamesOf(query: Record<string, unknown>): string[] | undefined {
  const raw = query.domains;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw === '') throw new ValidationError('domains', DETAIL);
  const parts = raw.split(',');
  if (parts.length > MAX_EXPORT_NAMES) throw new ValidationError('domains', DETAIL);
  const names = parts.map((part) => normalizeApex(part));
  if (names.some((name) => !name)) throw new ValidationError('domains', DETAIL);
  return [...new Set(names as string[])];
}

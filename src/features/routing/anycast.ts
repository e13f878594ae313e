import { isIPv4, isIPv6 } from 'node:net';
import { ValidationError } from '../../http/errors.js';

/**
 * Parses a list of addresses separated by commas, spaces or new lines into
 * canonical, de-duplicated addresses of one family; 422 on `field` otherwise.
 */
export function parseAddressList(value: string | string[], family: 4 | 6, field: string): string[] {
  const items = (Array.isArray(value) ? value.join(',') : value).split(/[\s,]+/).filter(Boolean);
  const valid = family === 4 ? isIPv4 : isIPv6;
  const bad = items.find((item) => !valid(item));
  if (bad !== undefined) throw new ValidationError(field, `${JSON.stringify(bad)} is not an IPv${family} address`);
  return [...new Set(items.map((item) => item.toLowerCase()))];
}

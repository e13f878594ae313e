import { ValidationError } from './errors.js';

/** An optional id query parameter (such as `domain_id`): absent is undefined, anything but a non-empty string is 422. */
export function optionalIdParam(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ValidationError(name, `${name} must be an id`);
  return value;
}

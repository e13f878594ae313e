import { ValidationError } from '../../http/errors.js';
import { optionalIdParam, optionalUnixParam } from '../../http/query.js';

/** What GET /api/v1/audit narrows the log to; every field is optional. */
export type AuditFilter = {
  domainId?: string;
  actor?: string;
  action?: string;
  targetType?: string;
  target?: string;
  from?: Date;
  to?: Date;
};

const ACTION = /^[a-z_]{1,64}(\.[a-z_]{1,64})?$/;
const TARGET_TYPE = /^[a-z_]{1,64}$/;
const MAX_TEXT = 256;

// A text parameter: absent or empty is no filter; anything but one string of 1..256 characters is 422.
function textParam(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > MAX_TEXT) throw new ValidationError(name, `${name} must be text of 1 to ${MAX_TEXT} characters`);
  return raw.trim();
}

function matching(query: Record<string, unknown>, name: string, pattern: RegExp, what: string): string | undefined {
  const value = textParam(query, name);
  if (value !== undefined && !pattern.test(value)) throw new ValidationError(name, `${name} must be ${what}`);
  return value;
}

const dateOf = (seconds: number | undefined) => (seconds === undefined ? undefined : new Date(seconds * 1000));

/**
 * The filter of GET /api/v1/audit from its query: `actor` (exact, any case), `action` (an action,
 * or a resource such as `dns_record` for all of its actions), `target_type`, `target` (a target's
 * id, or part of its name or its domain's apex, any case), `from` and `to` (unix seconds, [from, to))
 * and `domain_id`. A malformed value is 422 naming it.
 */
export function auditFilterOf(query: Record<string, unknown>): AuditFilter {
  const filter: AuditFilter = {
    domainId: optionalIdParam(query, 'domain_id'),
    actor: textParam(query, 'actor'),
    action: matching(query, 'action', ACTION, 'an action such as dns_record.create, or a resource such as dns_record'),
    targetType: matching(query, 'target_type', TARGET_TYPE, 'a target type such as domain or dns_record'),
    target: textParam(query, 'target'),
    from: dateOf(optionalUnixParam(query, 'from')),
    to: dateOf(optionalUnixParam(query, 'to')),
  };
  if (filter.from && filter.to && filter.from >= filter.to) throw new ValidationError('from', 'from must be before to');
  return filter;
}

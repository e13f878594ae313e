import { isIPv4, isIPv6 } from 'node:net';
import { normalizeApex } from '../../shared/hostnames.js';
import { SETTINGS, type SettingDefinition } from '../../shared/settings-definitions.js';

export { SETTINGS, type SettingDefinition };

// Platform hostnames must be fully qualified (two labels or more, a real TLD): the apex rule.
const normalizeFqdn = normalizeApex;

export type SettingsGroup = keyof typeof SETTINGS;
export const GROUPS = Object.keys(SETTINGS) as SettingsGroup[];

function listItems(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return undefined;
}

const LABEL = /^[a-z0-9][a-z0-9._-]{0,63}$/;

// Edge labels (CDN_EDGE_LABELS): lower case, 1-64 of letters, digits, '.', '_', '-'; at most 32.
function coerceLabels(items: unknown[]): { value: unknown } | { problem: string } {
  const normal = items.map((item) => (typeof item === 'string' ? item.toLowerCase() : item));
  const bad = normal.find((item) => typeof item !== 'string' || !LABEL.test(item));
  if (bad !== undefined) return { problem: `${JSON.stringify(bad)} is not a label (letters, digits, '.', '_', '-', at most 64)` };
  if (normal.length > 32) return { problem: 'must list at most 32 labels' };
  return { value: [...new Set(normal as string[])] };
}

/** Checks and normalises one value; returns it, or a problem text. Lists accept arrays or comma/space/new-line separated strings. */
export function coerceSetting(definition: SettingDefinition, value: unknown): { value: unknown } | { problem: string } {
  switch (definition.type) {
    case 'integer':
      return Number.isInteger(value) && (value as number) >= definition.min && (value as number) <= definition.max
        ? { value }
        : { problem: `must be an integer from ${definition.min} to ${definition.max}` };
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { problem: 'must be true or false' };
    case 'enum':
      return definition.values.includes(value as string) ? { value } : { problem: `must be one of ${definition.values.join(', ')}` };
    case 'hostname': {
      const host = typeof value === 'string' ? normalizeFqdn(value) : undefined;
      return host ? { value: host } : { problem: 'must be a hostname' };
    }
    default: {
      const items = listItems(value);
      if (!items) return { problem: 'must be a list (array, or a string separated by commas, spaces or new lines)' };
      if (definition.type === 'labels') return coerceLabels(items);
      const check = definition.type === 'ipv4_list' ? (item: unknown) => typeof item === 'string' && isIPv4(item) : definition.type === 'ipv6_list' ? (item: unknown) => typeof item === 'string' && isIPv6(item) : (item: unknown) => typeof item === 'string' && normalizeFqdn(item) !== undefined;
      const bad = items.find((item) => !check(item));
      if (bad !== undefined) return { problem: `${JSON.stringify(bad)} is not ${definition.type === 'hostnames' ? 'a hostname' : `an IPv${definition.type === 'ipv4_list' ? 4 : 6} address`}` };
      const normal = items.map((item) => (definition.type === 'hostnames' ? normalizeFqdn(item as string)! : (item as string).toLowerCase()));
      return { value: [...new Set(normal)] };
    }
  }
}

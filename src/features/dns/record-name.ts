const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * The relative form of a record name inside `zone`: "@" for the apex, lower
 * case, "*" allowed as the first label. A fully qualified name inside the zone
 * (with or without the trailing dot) is made relative; undefined when invalid.
 */
export function relativeRecordName(input: string, zone: string): string | undefined {
  let name = input.trim().toLowerCase();
  if (name === '@' || name === '' ) return name === '@' ? '@' : undefined;
  const fqdn = name.endsWith('.');
  name = name.replace(/\.$/, '');
  if (name === zone) return '@';
  if (name.endsWith(`.${zone}`)) name = name.slice(0, -(zone.length + 1));
  else if (fqdn) return undefined;
  if (name.length + zone.length + 1 > 253) return undefined;
  const labels = name.split('.');
  const valid = labels.every((label, index) => (index === 0 && label === '*') || LABEL.test(label));
  return valid ? name : undefined;
}

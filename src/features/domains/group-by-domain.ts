/** Rows of a per-domain table grouped by their domain, keeping their order. */
export function groupByDomain<T extends { domain_id: string }>(rows: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const list = groups.get(row.domain_id);
    if (list) list.push(row);
    else groups.set(row.domain_id, [row]);
  }
  return groups;
}

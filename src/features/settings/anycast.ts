import type { Db } from '../../db/client.js';
import { groupValues, updateGroup } from './store.js';

/** The platform anycast addresses per family (settings group `anycast`). */
export async function anycastAddresses(db: Db): Promise<{ ipv4: string[]; ipv6: string[] }> {
  const values = await groupValues(db, 'anycast');
  return { ipv4: values.anycast_ipv4 as string[], ipv6: values.anycast_ipv6 as string[] };
}

/** Sets either or both families from strings separated by commas, spaces or new lines (or arrays). */
export async function putAnycast(db: Db, body: { anycast_ipv4?: string | string[] | null; anycast_ipv6?: string | string[] | null }, actor: string) {
  const values = await updateGroup(db, 'anycast', Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)), actor);
  return { anycast_ipv4: values.anycast_ipv4, anycast_ipv6: values.anycast_ipv6 };
}

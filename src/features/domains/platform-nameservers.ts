import type { Config } from '../../config/load.js';
import { splitList } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { sqlOf } from '../../db/sql.js';

/** The platform's nameservers: the `nameservers.hostnames` setting when set, else CDN_DEFAULT_NAMESERVERS. */
export async function platformNameservers(db: Db, config: Config): Promise<string[]> {
  const { rows } = await sqlOf(db).query<{ value: unknown }>("SELECT value FROM settings WHERE \"group\" = 'nameservers' AND key = 'hostnames'");
  const setting = rows[0];
  if (Array.isArray(setting?.value) && setting.value.length > 0) return setting.value.map(String);
  return splitList(config.defaultNameservers);
}

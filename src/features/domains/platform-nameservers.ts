import type { Config } from '../../config/load.js';
import { splitList } from '../../config/load.js';
import type { Db } from '../../db/client.js';

/** The platform's nameservers: the `nameservers.hostnames` setting when set, else CDN_DEFAULT_NAMESERVERS. */
export async function platformNameservers(db: Db, config: Config): Promise<string[]> {
  const setting = await db.setting.findUnique({ where: { group_key: { group: 'nameservers', key: 'hostnames' } } });
  if (Array.isArray(setting?.value) && setting.value.length > 0) return setting.value.map(String);
  return splitList(config.defaultNameservers);
}

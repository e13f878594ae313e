import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import type { Phase } from '../pipeline/phase.js';
import { createClientResolver } from './client-address.js';
import { CountryDatabase } from './country-database.js';

/** Client address and country resolution of a worker. */
export type CountryServices = {
  phase: Phase;
  clientIp(headers: IncomingHttpHeaders, peer: string): string;
  close(): void;
};

/**
 * The country phase and what it needs, from CDN_EDGE_TRUSTED_PROXIES,
 * CDN_EDGE_COUNTRY_HEADERS and CDN_EDGE_GEOIP_FILE.
 * country: a trusted upstream's header first, else the GeoIP database; never handles.
 */
export async function createCountryServices(config: Config, logger: Logger): Promise<CountryServices> {
  const resolver = createClientResolver({ trustedProxies: config.edgeTrustedProxies, countryHeaders: config.edgeCountryHeaders });
  const database = await CountryDatabase.open(config.edgeGeoipFile, logger);
  return {
    phase: {
      name: 'country',
      run(ctx) {
        ctx.country = resolver.headerCountry(ctx.headers, ctx.peer) ?? database.lookup(ctx.clientIp);
        return false;
      },
    },
    clientIp: (headers, peer) => resolver.clientIp(headers, peer),
    close: () => database.close(),
  };
}

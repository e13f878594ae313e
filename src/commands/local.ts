import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig, type Config } from '../config/load.js';
import { runCore } from './core.js';
import { startLocalAcme, type LocalAcme } from './local-acme.js';
import { startLocalDns, type LocalDns } from './local-dns.js';
import { startLocalEdge, type LocalEdge } from './local-edge.js';

const LOCAL_ADMIN = 'admin';

// The local admin's password and the local edge's token are generated once and kept beside the embedded database.
async function localSecret(dataDir: string, name: string, make: () => string): Promise<string> {
  const file = path.resolve(dataDir, name);
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing?.trim()) return existing.trim();
  const secret = make();
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * `cdn local`: the whole local stack in one process tree: the core on
 * CDN_CORE_PORT with the embedded PostgreSQL (unless DATABASE_URL is set), a
 * bootstrapped admin whose credentials are printed, a CDN_SSL_SECRET_KEY kept in the data
 * folder unless one is given, one edge on
 * CDN_EDGE_HTTP_PORT with an edge token made for it, and a PowerDNS server the
 * core publishes zones to when pdns_server is installed (local-dns.ts), and a pebble
 * test CA the core orders certificates from when pebble is installed (local-acme.ts).
 */
export async function runLocal(env: NodeJS.ProcessEnv): Promise<void> {
  const base = loadConfig(env);
  const admin = base.bootstrapAdminUser
    ? {}
    : {
        CDN_BOOTSTRAP_ADMIN_USER: '1',
        CDN_BOOTSTRAP_ADMIN_USERNAME: LOCAL_ADMIN,
        CDN_BOOTSTRAP_ADMIN_PASSWORD: await localSecret(base.dataDir, 'local-admin-password', () => randomBytes(12).toString('base64url')),
      };
  const edgeToken = base.edgeToken ?? (await localSecret(base.dataDir, 'local-edge-token', () => `cdnedge_${randomBytes(32).toString('base64url')}`));
  const bootstrapEdge = base.bootstrapEdgeToken && base.bootstrapEdgeToken !== '0' ? {} : { CDN_BOOTSTRAP_EDGE_TOKEN: edgeToken };
  // Local certificates' keys are sealed with a key the data folder keeps, as production keeps one per installation.
  const sslKey = base.sslSecretKey ? {} : { CDN_SSL_SECRET_KEY: await localSecret(base.dataDir, 'local-ssl-secret-key', () => randomBytes(32).toString('base64')) };
  const stopStack = (what: string) => (code: number | null) => {
    process.stderr.write(`cdn: the local ${what} exited (code ${code}); stopping the local stack\n`);
    process.kill(process.pid, 'SIGTERM');
  };
  const dns = await startLocalDns(base, (name, make) => localSecret(base.dataDir, name, make), stopStack('PowerDNS'));
  const acme = await startLocalAcme(base, dns.kind === 'started' ? `${reachable(base.bind)}:${dns.dnsPort}` : undefined, stopStack('pebble'));
  const config = loadConfig({ ...env, ...admin, ...bootstrapEdge, ...sslKey, ...(dns.kind === 'off' ? {} : dns.env), ...(acme.kind === 'started' ? acme.env : {}) });
  let edge: LocalEdge | undefined;
  const coreUrl = await runCore(config, undefined, async () => {
    await edge?.stop();
    if (acme.kind === 'started') await acme.stop();
    if (dns.kind === 'started') await dns.stop();
  });
  // The local edge is the pool's only member: proxied names answer its address.
  edge = startLocalEdge({ CDN_EDGE_PUBLIC_IP: reachable(config.bind), ...env }, coreUrl, edgeToken, config.dataDir, stopStack('edge'));
  process.stdout.write(localBanner(coreUrl, `http://${config.bind}:${config.edgeHttpPort}`, config.bootstrapAdminUsername!, config.bootstrapAdminPassword!, [dnsLine(dns, config.bind), ...acmeLines(acme, config)]));
}

// The address a local client reaches a listener on: the bound one, or loopback for a wildcard bind.
function reachable(bind: string): string {
  return bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind;
}

function dnsLine(dns: LocalDns, bind: string): string {
  if (dns.kind === 'started') return `  DNS (PowerDNS) answering on ${bind} port ${dns.dnsPort}: dig @${reachable(bind)} -p ${dns.dnsPort} www.example.com`;
  if (dns.kind === 'external') return '  DNS published to the PowerDNS of CDN_POWERDNS_API_URL';
  return `  DNS publishing off: ${dns.reason}`;
}

// The HTTPS part of the banner: where certificates come from, and for pebble the root to trust with the exact curl line.
function acmeLines(acme: LocalAcme, config: Config): string[] {
  if (acme.kind === 'external') return ['  ACME certificates from CDN_SSL_ACME_DIRECTORY_URL'];
  if (acme.kind === 'off') return [`  ACME off (no certificates issued): ${acme.reason}`];
  const https = `www.example.com:${config.edgeHttpsPort}`;
  return [
    `  ACME certificates from a local pebble CA; its roots (one more at every start): ${acme.rootFile}`,
    `  HTTPS:   curl --cacert ${acme.rootFile} --resolve ${https}:${reachable(config.bind)} https://${https}/`,
  ];
}

function localBanner(url: string, edgeUrl: string, username: string, password: string, services: string[]): string {
  return [
    '',
    `  CDN core ready at ${url} (the dashboard: open it in a browser and log in as the admin below)`,
    `  CDN edge starting at ${edgeUrl} (readiness: ${edgeUrl}/ready)`,
    ...services,
    `  admin username: ${username}`,
    `  admin password: ${password}`,
    '',
    `  log in:  curl -s -X POST ${url}/api/v1/admin/login -H 'content-type: application/json' \\`,
    `             -d '{"username":"${username}","password":"${password}"}'`,
    '  stop:    Ctrl-C',
    '',
    '',
  ].join('\n');
}

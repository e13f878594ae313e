import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Config } from '../config/load.js';

const run = promisify(execFile);
const PEBBLE = '/usr/bin/pebble';
const START_TIMEOUT_MS = 15000;
const STOP_GRACE_MS = 5000;
// pebble is a local test CA: it listens on loopback whatever CDN_BIND says; only the local core talks to it.
const LOOPBACK = '127.0.0.1';
// Roots of earlier starts kept in the root file, so certificates issued before a restart still verify.
const KEPT_ROOTS = 20;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/** The ACME part of the local stack: a pebble the core orders from, a CA configured elsewhere, or none (and why). */
export type LocalAcme =
  | { kind: 'started'; env: Record<string, string>; rootFile: string; stop(): Promise<void> }
  | { kind: 'external' }
  | { kind: 'off'; reason: string };

/** Why pebble cannot run here, with the command that fixes it; undefined when it can. */
function pebbleMissing(): string | undefined {
  if (!existsSync(PEBBLE)) return 'pebble is not installed (apt-get install pebble)';
  if (spawnSync('openssl', ['version']).error) return 'openssl is not installed (apt-get install openssl), pebble needs it for its TLS certificate';
  return undefined;
}

// pebble's own TLS certificate (its directory is HTTPS only), made once and kept like the other local secrets.
async function pebbleTlsCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const files = { cert: path.join(dir, 'tls-cert.pem'), key: path.join(dir, 'tls-key.pem') };
  if (existsSync(files.cert) && existsSync(files.key)) return files;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '3650', '-subj', '/CN=cdn local pebble', '-addext', `subjectAltName=DNS:localhost,IP:${LOOPBACK}`, '-keyout', files.key, '-out', files.cert]);
  return files;
}

function httpsGet(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Starts Debian's pebble for `cdn local` (unless CDN_SSL_ACME_DIRECTORY_URL names a CA, and only
 * when pebble is installed): its directory on CDN_LOCAL_ACME_PORT, its management port on
 * CDN_LOCAL_ACME_MANAGEMENT_PORT, HTTP-01 validated on the local edge's plain port, names resolved
 * through the local PowerDNS (`dnsServer`) when it runs. pebble makes a new root CA at every start:
 * it is added to CDN_DATA_DIR/local-acme-root.pem, beside the roots of earlier starts, for clients
 * (curl --cacert) to trust.
 */
export async function startLocalAcme(config: Config, dnsServer: string | undefined, onExit: (code: number | null) => void): Promise<LocalAcme> {
  if (config.sslAcmeDirectoryUrl) return { kind: 'external' };
  const missing = pebbleMissing();
  if (missing) return { kind: 'off', reason: missing };
  const dir = path.resolve(config.dataDir, 'pebble');
  const tls = await pebbleTlsCertificate(dir);
  const configFile = path.join(dir, 'config.json');
  await writeFile(
    configFile,
    JSON.stringify({
      pebble: {
        listenAddress: `${LOOPBACK}:${config.localAcmePort}`,
        managementListenAddress: `${LOOPBACK}:${config.localAcmeManagementPort}`,
        certificate: tls.cert,
        privateKey: tls.key,
        httpPort: config.edgeHttpPort,
        tlsPort: config.edgeHttpsPort || config.edgeHttpPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const child = spawn(PEBBLE, ['-config', configFile, ...(dnsServer ? ['-dnsserver', dnsServer] : [])], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  process.once('exit', () => child.kill('SIGTERM'));
  let stopping = false;
  const stop = () => stopPebble(child, () => (stopping = true));
  const ca = await readFile(tls.cert, 'utf8');
  try {
    const root = await issuingRoot(child, `https://${LOOPBACK}:${config.localAcmeManagementPort}/roots/0`, ca, () => log);
    // From here on an exit nobody asked for stops the stack; one while starting is the error above, with pebble's log.
    child.once('exit', (code) => {
      if (!stopping) onExit(code);
    });
    const rootFile = path.resolve(config.dataDir, 'local-acme-root.pem');
    await keepRoot(rootFile, root);
    return { kind: 'started', env: { CDN_SSL_ACME_DIRECTORY_URL: `https://${LOOPBACK}:${config.localAcmePort}/dir`, CDN_SSL_ACME_CA_FILE: tls.cert }, rootFile, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// The root that signs what pebble issues, read once its management port answers.
async function issuingRoot(child: ChildProcess, url: string, ca: string, log: () => string): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pebble exited with ${child.exitCode}:\n${log()}`);
    const answer = await httpsGet(url, ca).catch(() => undefined);
    if (answer?.status === 200 && answer.body.includes('BEGIN CERTIFICATE')) return answer.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`pebble did not answer on ${url} within ${START_TIMEOUT_MS} ms:\n${log()}`);
}

// This start's root first, then those of the latest earlier starts.
async function keepRoot(file: string, root: string): Promise<void> {
  const current = root.trim();
  const earlier = (await readFile(file, 'utf8').catch(() => '')).match(PEM_CERTIFICATE) ?? [];
  const roots = [current, ...earlier.filter((pem) => pem !== current)].slice(0, KEPT_ROOTS);
  await writeFile(file, `${roots.join('\n')}\n`);
}

async function stopPebble(child: ChildProcess, markStopping: () => void): Promise<void> {
  markStopping();
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(force);
}

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './cluster.js';

const run = promisify(execFile);

/** Whether Debian's pebble is installed (.ci/run installs it). */
export function pebbleMissing(): string | undefined {
  return existsSync('/usr/bin/pebble') ? undefined : 'pebble is not installed (apt-get install pebble)';
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A real ACME CA of a suite's own: Debian's pebble on loopback with its own TLS certificate (made
 * with openssl), no validation delay, validating HTTP-01 on `httpPort` and resolving DNS-01
 * through `dnsServer` (a test pdns_server). Never its "always valid" switches.
 */
export class Pebble {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
    readonly managementPort: number,
  ) {}

  static async start(options: { httpPort: number; dnsServer: string; validityPeriodSeconds?: number }): Promise<Pebble> {
    const dir = await mkdtemp(path.join(tmpdir(), 'pebble-'));
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')]);
    const [port, managementPort] = [await freePort(), await freePort()];
    const config = {
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: path.join(dir, 'cert.pem'),
        privateKey: path.join(dir, 'key.pem'),
        httpPort: options.httpPort,
        tlsPort: await freePort(),
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        ...(options.validityPeriodSeconds ? { certificateValidityPeriod: options.validityPeriodSeconds } : {}),
      },
    };
    await writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
    const child = spawn('/usr/bin/pebble', ['-config', path.join(dir, 'config.json'), '-dnsserver', options.dnsServer], {
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    for (let tries = 0; !(await portOpen(port)); tries++) {
      if (tries > 100 || child.exitCode !== null) throw new Error(`pebble did not start: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return new Pebble(child, dir, port, managementPort);
  }

  get directoryUrl(): string {
    return `https://127.0.0.1:${this.port}/dir`;
  }

  /** The file a core trusts for pebble's own TLS (CDN_SSL_ACME_CA_FILE). */
  get tlsCaFile(): string {
    return path.join(this.dir, 'cert.pem');
  }

  /** The root that signs the certificates pebble issues (its management port's /roots/0). */
  async issuingRoot(): Promise<string> {
    const { stdout } = await run('curl', ['-sk', `https://127.0.0.1:${this.managementPort}/roots/0`]);
    return stdout;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

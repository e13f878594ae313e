import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A key type as openssl's -newkey takes it. */
export type KeyKind = 'ec:P-256' | 'ec:P-384' | 'ec:P-521' | 'rsa:2048' | 'rsa:1024' | 'ed25519';

/** PEM texts of a three-level chain made with openssl: root, intermediate, and a leaf for `names`. */
export type TestChain = { root: string; intermediate: string; leaf: string; leafKey: string; otherKey: string };

function newKeyArgs(kind: KeyKind): string[] {
  if (kind.startsWith('ec:')) return ['-newkey', 'ec', '-pkeyopt', `ec_paramgen_curve:${kind.slice(3)}`];
  return ['-newkey', kind];
}

async function issue(dir: string, name: string, subject: string, kind: KeyKind, signer: string | undefined, extensions: string, days: number): Promise<void> {
  const file = (suffix: string) => path.join(dir, `${name}.${suffix}`);
  await writeFile(file('ext'), extensions);
  if (!signer) {
    await run('openssl', ['req', '-x509', ...newKeyArgs(kind), '-nodes', '-subj', subject, '-days', String(days), '-keyout', file('key'), '-out', file('pem'), '-extensions', 'v3', '-config', file('ext')]);
    return;
  }
  await run('openssl', ['req', '-new', ...newKeyArgs(kind), '-nodes', '-subj', subject, '-keyout', file('key'), '-out', file('csr'), '-config', file('ext')]);
  const signerFile = (suffix: string) => path.join(dir, `${signer}.${suffix}`);
  await run('openssl', ['x509', '-req', '-in', file('csr'), '-CA', signerFile('pem'), '-CAkey', signerFile('key'), '-CAcreateserial', '-days', String(days), '-extfile', file('ext'), '-extensions', 'v3', '-out', file('pem')]);
}

const CA_EXTENSIONS = '[req]\ndistinguished_name=dn\n[dn]\n[v3]\nbasicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\n';
const leafExtensions = (names: string[]) => `[req]\ndistinguished_name=dn\n[dn]\n[v3]\nbasicConstraints=CA:false\nsubjectAltName=${names.map((name) => `DNS:${name}`).join(',')}\n`;

/** Makes a root, an intermediate and a leaf covering `names` with a `kind` key, valid for `days`. */
export async function makeTestChain(names: string[], kind: KeyKind = 'ec:P-256', days = 30): Promise<TestChain> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cdn-test-certs-'));
  try {
    await issue(dir, 'root', '/CN=CDN Test Root', 'ec:P-256', undefined, CA_EXTENSIONS, days + 10);
    await issue(dir, 'intermediate', '/CN=CDN Test Intermediate', 'ec:P-256', 'root', CA_EXTENSIONS, days + 5);
    await issue(dir, 'leaf', `/CN=${names[0]}`, kind, 'intermediate', leafExtensions(names), days);
    await issue(dir, 'other', '/CN=other', kind, 'intermediate', leafExtensions(['other.invalid']), days);
    const read = (name: string) => readFile(path.join(dir, name), 'utf8');
    return { root: await read('root.pem'), intermediate: await read('intermediate.pem'), leaf: await read('leaf.pem'), leafKey: await read('leaf.key'), otherKey: await read('other.key') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// The certificates of `npm run bench:tls`: one CA and a leaf per domain, ECDSA P-256, made with
// openssl (node:crypto cannot sign X.509). OpenSSL 3's `req -x509 -CA` makes a key and its signed
// leaf in one process; a few run at once.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '3'];
const PARALLEL = 4;

/** Files of a domain's leaf in `dir`: `<apex>.pem` (covering the apex and www) and `<apex>.key`. */
export const leafFiles = (dir: string, apex: string) => ({ certificate: path.join(dir, `${apex}.pem`), key: path.join(dir, `${apex}.key`) });

/** Writes `ca.pem`/`ca.key` and a leaf for every apex of `apexes` into `dir`. */
export async function makeLeafCertificates(dir: string, apexes: string[]): Promise<void> {
  const ca = { certificate: path.join(dir, 'ca.pem'), key: path.join(dir, 'ca.key') };
  await run('openssl', ['req', '-x509', ...KEY, '-subj', '/CN=CDN Bench CA', '-addext', 'basicConstraints=critical,CA:true', '-addext', 'keyUsage=critical,keyCertSign', '-keyout', ca.key, '-out', ca.certificate]);
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < apexes.length) {
      const apex = apexes[next++];
      const leaf = leafFiles(dir, apex);
      await run('openssl', ['req', '-x509', ...KEY, '-subj', `/CN=www.${apex}`, '-CA', ca.certificate, '-CAkey', ca.key, '-addext', `subjectAltName=DNS:${apex},DNS:www.${apex}`, '-addext', 'basicConstraints=CA:false', '-keyout', leaf.key, '-out', leaf.certificate]);
    }
  }));
}

// The fingerprint of the server's TypeScript sources (src/, less the browser dashboard): every
// file's path, size and modification time, hashed. scripts/build-server.mjs writes it into lib/
// once lib/ is complete; bin/cdn.js runs lib/ only while the sources still have that fingerprint,
// so an edited, added or removed source file is never served stale from lib/.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const SOURCE_DIR = path.join(root, 'src');
const BROWSER_DIR = path.join(SOURCE_DIR, 'dashboard');
export const LIB_DIR = path.join(root, 'lib');
export const STAMP_FILE = path.join(LIB_DIR, '.source-stamp');

/** The server's TypeScript source files, sorted. */
export function serverSources(dir = SOURCE_DIR) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (file !== BROWSER_DIR) files.push(...serverSources(file));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(file);
  }
  return files.sort();
}

/** The fingerprint of `files` (below `base`) as they are on disk now. */
export function sourceStamp(files = serverSources(), base = SOURCE_DIR) {
  const hash = createHash('sha256');
  for (const file of files) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${path.relative(base, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** The fingerprint lib/ was built from; undefined when lib/ is missing or incomplete. */
function builtStamp() {
  try {
    return readFileSync(STAMP_FILE, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** True when lib/ holds the compiled form of the sources as they are now. */
export function libIsCurrent() {
  const built = builtStamp();
  return built !== undefined && built === sourceStamp();
}

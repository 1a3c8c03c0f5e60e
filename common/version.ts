// The program version, read once from the package.json above this file (works from the
// TypeScript sources under vitest and from the compiled dist/ tree alike).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BINARY_BUILD } from './runtime.js';

function findPackageJson(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error('package.json not found above the program files');
}

/** The install's root (package.json); for the single binary, the folder it sits in. */
export const PROJECT_ROOT = BINARY_BUILD ? dirname(process.execPath) : dirname(findPackageJson());
export const VERSION: string = BINARY_BUILD ? BINARY_BUILD.version : JSON.parse(readFileSync(findPackageJson(), 'utf8')).version;

/** The git commit of this build: embedded in the binary; from a checkout, asked of git; else "unknown". */
export function buildCommit(): string {
  if (BINARY_BUILD) return BINARY_BUILD.commit;
  const r = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 2000 });
  return r.status === 0 && /^[0-9a-f]+$/.test(r.stdout.trim()) ? r.stdout.trim() : 'unknown';
}

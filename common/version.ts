// The program version, read once from the package.json above this file (works from the
// TypeScript sources under vitest and from the compiled dist/ tree alike).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageJson(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error('package.json not found above the program files');
}

export const PROJECT_ROOT = dirname(findPackageJson());
export const VERSION: string = JSON.parse(readFileSync(findPackageJson(), 'utf8')).version;

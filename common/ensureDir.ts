// mkdir -p without `recursive: true`: Node's recursive mkdir spins forever on paths such
// as /proc/x/y (it keeps retrying ENOENT), so walk the missing parents ourselves.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let d = dir;
  while (!existsSync(d)) {
    missing.push(d);
    const parent = dirname(d);
    if (parent === d) break;
    d = parent;
  }
  if (existsSync(d) && !statSync(d).isDirectory()) {
    throw Object.assign(new Error(`"${d}" is not a directory`), { code: 'ENOTDIR' });
  }
  for (const m of missing.reverse()) mkdirSync(m);
}

// Every temporary file of a test run lives under one folder, removed when the run ends: the
// workers and every process they spawn inherit TMPDIR, so os.tmpdir() points inside it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempRoot {
  readonly path: string;
  /** Remove the folder and restore the previous TMPDIR. */
  remove(): void;
}

export function createTempRoot(parent = tmpdir()): TempRoot {
  const previous = process.env.TMPDIR;
  const path = mkdtempSync(join(parent, 'vaultd-tests-'));
  process.env.TMPDIR = path;
  return {
    path,
    remove() {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      rmSync(path, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

export default function setup(): () => void {
  const root = createTempRoot();
  return () => root.remove();
}

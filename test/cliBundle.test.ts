// The one-file CLI (dist/vaultd.cjs, scripts/bundleCli.mjs): bin/vaultd.js runs it while it is
// newer than the last compile and the dist/ modules otherwise, and both publish the same
// snapshot byte for byte (same pages, same ETags, same identity: the bundle finds the compute
// worker, the code stamp's files and package.json where the dist/ modules do).
import { readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';
import { smallDemoDb, vaultd } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

const bundle = join(PROJECT_ROOT, 'dist', 'vaultd.cjs');
const buildInfo = join(PROJECT_ROOT, 'dist', '.tsbuildinfo');
let dir: string;
let db: string;
let probe: string;

beforeAll(() => {
  dir = tempDir();
  db = join(dir, 'w.duckdb');
  smallDemoDb(db, ['--seed', '3', '--now', '2026-06-01T00:00:00Z', '--wallets', '12', '--days', '6', '--vaults', '4']);
  // preloaded into the CLI's process: says at exit whether the bundle was the program that ran
  probe = join(dir, 'probe.cjs');
  writeFileSync(
    probe,
    `process.on('exit', () => process.stderr.write('bundle loaded: ' + (require.cache[${JSON.stringify(bundle)}] !== undefined) + '\\n'));\n`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `vaultd publish` into a new folder: which program ran, and the published files by name. */
function publish(name: string, env: Record<string, string> = {}): { bundle: boolean; files: Map<string, string> } {
  const out = join(dir, name);
  const r = vaultd(['publish', '--db', db, '--out', out], { NODE_OPTIONS: `--require ${probe}`, ...env });
  expect(r.status, r.stderr).toBe(0);
  const loaded = /bundle loaded: (true|false)/.exec(r.stderr);
  expect(loaded, r.stderr).not.toBeNull();
  const files = new Map<string, string>();
  for (const f of readdirSync(out, { recursive: true }) as string[]) {
    const p = join(out, f);
    // the manifest says when it was written; all else must be equal
    if (statSync(p).isFile()) files.set(f, readFileSync(p, 'latin1').replace(/"written_at":\s*"[^"]*"/, '"written_at": ""'));
  }
  return { bundle: loaded![1] === 'true', files };
}

describe('the one-file CLI', () => {
  it('is built newer than the compile, runs, and publishes what the dist/ modules publish, byte for byte', () => {
    expect(statSync(bundle).mtimeMs).toBeGreaterThan(statSync(buildInfo).mtimeMs);
    const fromBundle = publish('a');
    const fromModules = publish('b', { VAULTD_NO_BUNDLE: '1' });
    expect(fromBundle.bundle).toBe(true);
    expect(fromModules.bundle).toBe(false);
    expect(fromBundle.files.has('manifest.json')).toBe(true);
    expect([...fromBundle.files.keys()].sort()).toEqual([...fromModules.files.keys()].sort());
    for (const [name, bytes] of fromBundle.files) expect(bytes, name).toBe(fromModules.files.get(name));
  });

  it('is not run once a compile is newer than it (a `tsc` after the build): the dist/ modules are', () => {
    const { atime, mtime } = statSync(bundle);
    const before = new Date(statSync(buildInfo).mtimeMs - 60_000);
    try {
      utimesSync(bundle, before, before);
      expect(publish('c').bundle).toBe(false);
    } finally {
      utimesSync(bundle, atime, mtime);
    }
    expect(publish('d').bundle).toBe(true);
  });
});

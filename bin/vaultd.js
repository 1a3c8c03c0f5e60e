#!/usr/bin/env node
// Entry of the `vaultd` bin: runs the compiled CLI, building it first on a fresh checkout.
// The build's one-file CLI (dist/vaultd.cjs, scripts/bundleCli.mjs) is run while it is newer
// than the last compile; after a `tsc` that changed dist/ (or with VAULTD_NO_BUNDLE=1), the
// dist/ modules themselves are.
import { existsSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write('vaultd: building (first run)...\n');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
const bundle = join(root, 'dist', 'vaultd.cjs');
const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? null;
const compiled = mtime(join(root, 'dist', '.tsbuildinfo'));
const bundled = process.env.VAULTD_NO_BUNDLE !== '1' && compiled !== null && (mtime(bundle) ?? -Infinity) > compiled;
const { main } = bundled ? createRequire(import.meta.url)(bundle) : await import(entry);
// Exit explicitly: a closed uWS loop or a DuckDB handle must not keep a finished command alive.
process.exit(await main(process.argv.slice(2)));

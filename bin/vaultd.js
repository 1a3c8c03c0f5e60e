#!/usr/bin/env node
// Entry of the `vaultd` bin: runs the compiled CLI, building it first on a fresh checkout.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
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
const { main } = await import(entry);
// Exit explicitly: a closed uWS loop or a DuckDB handle must not keep a finished command alive.
process.exit(await main(process.argv.slice(2)));

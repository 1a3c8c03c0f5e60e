// Near the file-descriptor limit the store refuses to open a database with a clear error
// instead of letting DuckDB abort the process on EMFILE (a server under a connection flood
// kept crashing when a key reload opened the database), and opens it again once descriptors
// are free. Runs in a child under `ulimit -n 128`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';
import { tempDir } from '../test/helpers/common.js';

const script = (db: string) => `
const { openSync, closeSync, readdirSync } = await import('node:fs');
const { createStore } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'store', 'store.js'))});
const { createCommon } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'common', 'common.js'))});
const { loadConfig } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'common', 'config.js'))});
const { createLogger } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'common', 'logger.js'))});
const { VAULT_TYPES } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'families', 'index.js'))});
const common = createCommon(loadConfig(VAULT_TYPES, {}, {}), { logger: createLogger('silent') });
const held = [];
while (128 - readdirSync('/proc/self/fd').length > 20) held.push(openSync('/dev/null', 'r'));
try {
  await createStore(common, { path: ${JSON.stringify(db)} });
  console.log('opened near the limit');
} catch (err) {
  console.log('refused', err.code, err.message);
}
for (const fd of held) closeSync(fd);
const store = await createStore(common, { path: ${JSON.stringify(db)} });
await store.close();
console.log('opened once free');
`;

describe('store open near the descriptor limit', () => {
  it('is refused with DB_UNAVAILABLE (the process lives on) and works once descriptors are free', () => {
    const db = join(tempDir('vaultd-fds-'), 'w.duckdb');
    const r = spawnSync('sh', ['-c', `ulimit -n 128 && exec "${process.execPath}" --input-type=module -e "$SCRIPT"`], {
      env: { ...process.env, SCRIPT: script(db), VAULTD_LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^refused DB_UNAVAILABLE only \d+ of 128 file descriptors are free, so ".*w\.duckdb" is not opened now; raise the limit \(ulimit -n\)/,
    );
    expect(lines[1]).toBe('opened once free');
  });
});

// The oldest glibc this install runs on, measured: `objdump -T` over every native library a
// vaultd process loads (the uWebSockets.js addon of each supported Node, DuckDB's addon and
// its library) and the Node binary running this script. Prints one line per file and the floor.
// Usage: node scripts/glibcFloor.mjs [--json]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(join(root, 'package.json'));
/** Node ABI versions of the supported Nodes: 20, 22, 24. */
export const SUPPORTED_ABIS = { 20: 115, 22: 127, 24: 137 };

const compare = (a, b) => {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
};

/** The files, each with the highest GLIBC_ version its dynamic symbols need. */
export function measure() {
  const arch = process.arch;
  const uws = dirname(require.resolve('uWebSockets.js'));
  const duck = dirname(require.resolve(`@duckdb/node-bindings-linux-${arch}/duckdb.node`));
  const files = [
    ...Object.entries(SUPPORTED_ABIS).map(([node, abi]) => ({ what: `uWebSockets.js addon (Node ${node})`, path: join(uws, `uws_linux_${arch}_${abi}.node`) })),
    { what: 'DuckDB addon', path: join(duck, 'duckdb.node') },
    { what: 'DuckDB library', path: join(duck, 'libduckdb.so') },
    { what: `Node ${process.version}`, path: process.execPath },
  ];
  return files.map((f) => {
    const dump = spawnSync('objdump', ['-T', f.path], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (dump.status !== 0) throw new Error(`objdump -T ${f.path} failed: ${dump.error?.message ?? dump.stderr}`);
    const versions = [...new Set(dump.stdout.match(/GLIBC_[0-9.]+/g) ?? [])].map((v) => v.slice(6)).sort(compare);
    return { ...f, glibc: versions.at(-1) ?? null };
  });
}

export function floor(rows) {
  return rows
    .map((r) => r.glibc)
    .filter((v) => v !== null)
    .sort(compare)
    .at(-1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = measure();
  if (process.argv.includes('--json')) console.log(JSON.stringify({ floor: floor(rows), files: rows }, null, 2));
  else {
    for (const r of rows) console.log(`${(r.glibc ?? '-').padEnd(6)} ${r.what} (${relative(root, r.path)})`);
    console.log(`glibc floor: ${floor(rows)}`);
  }
}

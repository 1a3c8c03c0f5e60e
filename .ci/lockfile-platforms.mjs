#!/usr/bin/env node
// The npm mirror here lacks DuckDB's bindings for other platforms, so `npm install` drops
// their lockfile entries and `npm ci` then refuses the lockfile as out of sync. This puts the
// entries back (optional, platform-gated: npm ci skips them here without fetching them).
// Run it after every `npm install` that rewrites package-lock.json.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const parent = lock.packages['node_modules/@duckdb/node-bindings'];
let added = 0;
for (const [name, version] of Object.entries(parent?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [, os, cpu, musl] = /node-bindings-(\w+)-(\w+?)(-musl)?$/.exec(name);
  lock.packages[key] = {
    version,
    cpu: [cpu],
    ...(os === 'linux' ? { libc: [musl ? 'musl' : 'glibc'] } : {}),
    license: 'MIT',
    optional: true,
    os: [os],
  };
  added++;
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile: ${added} platform entries restored`);

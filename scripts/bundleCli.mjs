// Part of `npm run build` (after tsc): the compiled CLI (dist/cli/main.js and the ~190 modules
// it reaches) as one CommonJS file, dist/vaultd.cjs, which bin/vaultd.js runs while it is newer
// than the compile (dist/.tsbuildinfo, rewritten by every tsc that changes an output).
//
// Why: Node 20 resolves, reads and links each ES module of dist/ one by one; a `vaultd serve`
// cold start spent ~0.1-0.15 s of its ~1 s doing that. One file, required, skips it. The bundle
// is CommonJS, not ESM, so the modules a command imports on demand (the chain toolkit, the price
// jobs, the demo builder) stay lazy requires inside it instead of static imports hoisted to its
// top. Packages stay outside it (node_modules, loaded as before); worker scripts (the compute
// pool's, the demo simulator's) stay the dist/ files they are.
//
// Each module's `import.meta.url` becomes the URL of its own file in dist/, so everything that
// finds files from there (the compute worker, package.json, the code stamp, the static assets)
// finds the same ones.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outfile = join(dist, 'vaultd.cjs');

await build({
  entryPoints: [join(dist, 'cli', 'main.js')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outfile,
  packages: 'external',
  // the modules are ES modules: strict mode, as they ran before. The URL helper is declared at
  // the top, where `require` is the bundle's own (a module may name a local `require`).
  banner: { js: `'use strict';\nconst __vaultdModuleUrl = (file) => require('node:url').pathToFileURL(require('node:path').join(__dirname, file)).href;` },
  logLevel: 'warning',
  // an import.meta left over (another use than .url) would be empty in CommonJS: fail the build
  logOverride: { 'empty-import-meta': 'error' },
  legalComments: 'none',
  plugins: [
    {
      name: 'vaultd-module-url',
      setup(b) {
        b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
          const source = readFileSync(args.path, 'utf8');
          if (!source.includes('import.meta.url')) return undefined;
          const url = `__vaultdModuleUrl(${JSON.stringify(relative(dirname(outfile), args.path))})`;
          return { contents: source.replaceAll('import.meta.url', url), loader: 'js', resolveDir: dirname(args.path) };
        });
      },
    },
  ],
});

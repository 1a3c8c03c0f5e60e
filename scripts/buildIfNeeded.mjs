// `npm start` / `npm test` pre-step: compile only when a source is newer than the last build,
// so a second `npm start` starts at once. Plain JS: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const stamp = join(root, 'dist', '.build-stamp');

/** Newest modification time of the compiler's inputs (tsconfig include folders and configs). */
function newestInput() {
  const tsconfig = readFileSync(join(root, 'tsconfig.json'), 'utf8');
  const include = JSON.parse(/"include":\s*(\[[^\]]*\])/.exec(tsconfig)[1]);
  let newest = 0;
  const visit = (path) => {
    const st = statSync(path);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else if (/\.(ts|json|mjs|cjs|css)$/.test(path)) newest = Math.max(newest, st.mtimeMs);
  };
  for (const f of ['tsconfig.json', 'client/tsconfig.json', 'explorer', 'package.json', 'package-lock.json']) visit(join(root, f));
  for (const dir of include) if (existsSync(join(root, dir))) visit(join(root, dir));
  return newest;
}

if (process.argv.includes('--stamp')) {
  // called at the end of `npm run build`: record that dist/ matches the sources now
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.exit(0);
}
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
if (built >= newestInput()) process.exit(0);
const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);

// `npm ci` stays quiet about install scripts: every dependency that has one is reviewed in
// package.json's allowScripts (npm 11.16+ warns about the rest), and docs/runtime.md says why.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';

const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), 'utf8');

describe('install scripts', () => {
  const pkg = JSON.parse(read('package.json')) as { allowScripts?: Record<string, boolean> };
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string; hasInstallScript?: boolean }> };
  const policy = Object.keys(pkg.allowScripts ?? {});
  const withScripts = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.hasInstallScript)
    .map(([path, p]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: p.version }));

  it('every locked dependency with an install script is allowed or denied in allowScripts', () => {
    expect(withScripts.length).toBeGreaterThan(0);
    const unreviewed = withScripts.filter(({ name, version }) => !policy.includes(name) && !policy.includes(`${name}@${version}`));
    expect(unreviewed).toEqual([]);
  });

  it('docs/runtime.md explains each allowScripts entry', () => {
    const section = read('docs/runtime.md').split('### Install scripts (`allowScripts`)')[1]!.split('\n### ')[0]!;
    for (const key of policy) expect(section, key).toContain(`**\`${key.replace(/(?<=.)@[^@/]+$/, '')}\``);
  });
});

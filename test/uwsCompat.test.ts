// The install's compatibility step for uWebSockets.js (scripts/uwsCompat.mjs): the installed
// addons need no glibc past 2.36, the patch is exactly the reviewed one (undoing it gives the
// published file back, byte for byte), and the addon this Node loads serves.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain-JS build script (it runs before anything is compiled)
import { compareGlibc, patchAddon, REVIEWED, requiredGlibc, sha256, unpatchAddon } from '../scripts/uwsCompat.mjs';

const require = createRequire(import.meta.url);
const pkg = dirname(require.resolve('uWebSockets.js'));
const addons = readdirSync(pkg).filter((f) => /^uws_linux_.*\.node$/.test(f));

describe('uWebSockets.js compatibility step', () => {
  it('every Linux addon of the package is reviewed and installed patched', () => {
    expect(addons.length).toBe(8);
    for (const name of addons) {
      const reviewed = (REVIEWED as Record<string, { patched: string }>)[name];
      expect(reviewed, name).toBeDefined();
      expect(sha256(readFileSync(join(pkg, name))), name).toBe(reviewed!.patched);
    }
  });

  it('undoing the patch gives the published file back; patching again changes nothing', () => {
    for (const name of addons) {
      const installed = readFileSync(join(pkg, name));
      const published = unpatchAddon(installed);
      expect(sha256(published), name).toBe((REVIEWED as Record<string, { published: string }>)[name]!.published);
      expect(sha256(patchAddon(published)), name).toBe(sha256(installed));
      expect(sha256(patchAddon(installed)), name).toBe(sha256(installed));
      // a handful of bytes in four-byte fields, nothing else
      let changed = 0;
      for (let i = 0; i < installed.length; i++) if (installed[i] !== published[i]) changed++;
      expect(changed, name).toBeGreaterThan(0);
      expect(changed, name).toBeLessThanOrEqual(16);
    }
  });

  it('the published addons need glibc 2.38 and the installed ones at most 2.36', () => {
    for (const name of addons) {
      const installed = readFileSync(join(pkg, name));
      expect(requiredGlibc(unpatchAddon(installed)).at(-1), name).toBe('GLIBC_2.38');
      expect(compareGlibc(requiredGlibc(installed).at(-1), 'GLIBC_2.36'), name).toBeLessThanOrEqual(0);
    }
  });

  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'objdump agrees: no __isoc23_ symbol and nothing past GLIBC_2.36 in the addon this Node loads',
    () => {
      const file = join(pkg, `uws_linux_x64_${process.versions.modules}.node`);
      const dump = spawnSync('objdump', ['-T', file], { encoding: 'utf8' });
      if (dump.error) return expect.fail(`objdump is needed for this check (Debian: binutils): ${dump.error.message}`);
      expect(dump.stdout).not.toMatch(/__isoc23_/);
      const versions = [...new Set(dump.stdout.match(/GLIBC_[0-9.]+/g))].sort(compareGlibc);
      expect(versions.at(-1)).toBe('GLIBC_2.36');
      expect(dump.stdout).toMatch(/\(GLIBC_2\.2\.5\)\s+strtol\n/);
    },
  );

  it('a patch that would retarget anything but the three C23 functions is refused', () => {
    const name = `uws_linux_x64_${process.versions.modules}.node`;
    const published = Buffer.from(unpatchAddon(readFileSync(join(pkg, name))));
    // rename "__isoc23_strtol" to "__isoc23_strtoX" in the dynamic strings: not a function it knows
    const at = published.indexOf(Buffer.from('\0__isoc23_strtol\0'));
    expect(at).toBeGreaterThan(0);
    published[at + 15] = 'X'.charCodeAt(0);
    expect(() => patchAddon(published)).toThrow(/GLIBC_2\.38 is needed by "__isoc23_strtoX", which this step does not retarget/);
  });
});

// The README's glibc floor is the measured one: objdump -T over every native library a
// vaultd process loads (scripts/glibcFloor.mjs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';
// @ts-expect-error a plain-JS build script
import { floor, measure } from '../scripts/glibcFloor.mjs';

describe.runIf(process.platform === 'linux')('glibc floor', () => {
  it('the README states the floor that objdump measures over the loaded native libraries', () => {
    const rows = measure() as { what: string; glibc: string | null }[];
    expect(rows.every((r) => r.glibc !== null)).toBe(true);
    const measured = floor(rows) as string;
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const stated = /\*\*glibc (\d+\.\d+) or later\*\*/.exec(readme)?.[1];
    expect(stated).toBe(measured);
    // and the uWS addon is what sets it
    expect(rows.filter((r) => r.what.startsWith('uWebSockets.js')).map((r) => r.glibc)).toEqual([measured, measured, measured]);
  });
});

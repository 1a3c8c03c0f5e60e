// npm test leaves nothing behind: temp folders are made under one root that the run removes.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTempRoot } from './helpers/globalSetup.js';
import { tempDir } from './helpers/common.js';

describe('temporary files of a test run', () => {
  it('this worker and the processes it spawns write under the run root', () => {
    expect(tmpdir()).toMatch(/vaultd-tests-[^/]+$/);
    expect(tempDir('x-').startsWith(`${tmpdir()}/`)).toBe(true);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], { encoding: 'utf8' });
    expect(child.stdout).toBe(tmpdir());
  });

  it('the root and everything under it is removed at teardown', () => {
    const outer = process.env.TMPDIR;
    const root = createTempRoot(tempDir('outer-'));
    expect(process.env.TMPDIR).toBe(root.path);
    const inner = tempDir('inner-');
    expect(inner.startsWith(root.path)).toBe(true);
    writeFileSync(join(inner, 'world.duckdb'), 'x');
    root.remove();
    expect(existsSync(root.path)).toBe(false);
    expect(process.env.TMPDIR).toBe(outer);
  });
});

// The tools hold the code, tests included: Biome (lint and format, 160 columns) and the
// type-checker over every TypeScript file (`npm run lint`, `npm run typecheck`).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';

const bin = (name: string) => join(PROJECT_ROOT, 'node_modules', '.bin', name);
// no deadline of its own: a full type-check takes a minute or more on a loaded 2-core machine,
// and the test's budget below bounds the three of them
const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: PROJECT_ROOT, encoding: 'utf8' });

describe('code quality', () => {
  it('biome check: no lint finding and nothing the formatter would change', () => {
    const r = run(bin('biome'), ['check', '.', '--max-diagnostics=20']);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  });

  it('tsc: the program, the tests, the benches, the client and the explorer type-check', () => {
    for (const project of ['tsconfig.typecheck.json', 'client/tsconfig.json', 'explorer/tsconfig.json']) {
      const r = run(bin('tsc'), ['-p', project, '--noEmit']);
      expect(r.status, `${project}:\n${r.stdout}${r.stderr}`).toBe(0);
    }
  }, 600_000);
});

// How the client ships: the `vaultd/client` export of the build, no imports outside client/ and
// no Node built-ins (it runs in browsers), and its version equal to the package's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as client from 'vaultd/client';
import { PROJECT_ROOT } from '../../common/version.js';

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'));
const CLIENT = join(PROJECT_ROOT, 'client');

function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => (m[1] ?? m[2])!);
}

describe('vaultd/client as a package', () => {
  it('package.json exports ./client (types and module) and keeps the bin', () => {
    expect(pkg.exports['./client']).toEqual({ types: './dist/client/index.d.ts', default: './dist/client/index.js' });
    expect(pkg.bin).toEqual({ vaultd: 'bin/vaultd.js' });
    for (const f of ['index.js', 'index.d.ts', 'types.gen.d.ts']) expect(readdirSync(join(PROJECT_ROOT, 'dist', 'client'))).toContain(f);
  });

  it('exports the public API by name, and nothing internal', () => {
    expect(Object.keys(client).sort()).toEqual(
      [
        'AmountError',
        'CLIENT_VERSION',
        'CursorStaleError',
        'VaultdApiError',
        'VaultdClientError',
        'activityFlows',
        'compareActivity',
        'createClient',
        'fromBaseUnits',
        'isVaultdClientError',
        'positionHistory',
        'toBaseUnits',
        'waitForSettlement',
      ].sort(),
    );
    expect(client.CLIENT_VERSION).toBe(pkg.version);
  });

  it('client/ imports nothing outside client/ and no Node built-ins; the example imports only vaultd/client', () => {
    const files = readdirSync(CLIENT).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(join(CLIENT, f), 'utf8');
      for (const spec of specifiers(text)) expect(spec, `${f} imports ${spec}`).toMatch(/^\.\/[\w.]+\.js$/);
      expect(text, f).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(/);
    }
    const example = readFileSync(join(CLIENT, 'examples', 'portfolio.mjs'), 'utf8');
    expect(specifiers(example)).toEqual(['vaultd/client']);
  });

  it('the built modules import only each other', () => {
    const dist = join(PROJECT_ROOT, 'dist', 'client');
    for (const f of readdirSync(dist).filter((x) => x.endsWith('.js'))) {
      for (const spec of specifiers(readFileSync(join(dist, f), 'utf8'))) expect(spec, `${f} imports ${spec}`).toMatch(/^\.\/[\w.]+\.js$/);
    }
  });
});

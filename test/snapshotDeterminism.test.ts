// DESIGN §7: the same seed and now give byte-identical API output apart from request_id and
// refreshed_at — asserted on every pre-serialized page of two independently built worlds.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DemoParams } from '../jobs/demo/index.js';
import { tempDir } from './helpers/common.js';
import { publishedDemo } from './helpers/publishedDemo.js';

const params: DemoParams = { seed: 11, now: Date.parse('2026-04-01T00:00:00Z') / 1000, vaults: null, wallets: 120, days: 150 };

async function pagesOf(path: string, clock: number) {
  const { pages } = await publishedDemo(path, params, clock);
  return new Map([...pages].map(([k, p]) => [k, p.prefix.toString('utf8')]));
}

describe('snapshot determinism', () => {
  it('same demo world → byte-identical pages (refreshed_at aside)', async () => {
    const dir = tempDir();
    const a = await pagesOf(join(dir, 'a.duckdb'), params.now + 100);
    const b = await pagesOf(join(dir, 'b.duckdb'), params.now + 7200);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    expect(a.size).toBeGreaterThan(50);
    const strip = (s: string) => s.replace(/"refreshed_at":"[^"]+"/g, '"refreshed_at":"-"');
    for (const [key, body] of a) expect(strip(b.get(key)!), key).toBe(strip(body));
    // and refreshed_at is the only difference: the publish instants differ, so some pages do
    expect([...a].some(([k, body]) => b.get(k) !== body)).toBe(true);
  });
});

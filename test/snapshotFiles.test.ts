// Issues #9/#11: the published snapshot written to a directory and read back gives the same
// world, byte-identical pages and ETags, and identical per-request answers (timeseries windows,
// positions, activity); a truncated or bit-flipped file is refused, never served.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot, type Snapshot } from '../engine/publish/buildSnapshot.js';
import {
  CorruptSnapshotError,
  readManifest,
  readSnapshotDir,
  removeUnlisted,
  writeJsonObject,
  writeManifest,
  writeSnapshotDir,
  writeWorldFiles,
} from '../engine/publish/snapshotFiles.js';
import type { World } from '../model/world.js';
import { eventRows } from '../model/events.js';
import { APY_WINDOW_DAYS, apyAt, apyColumn, keepsApy } from '../engine/series/apyWindows.js';
import { walletPositionList } from '../engine/publish/walletViews.js';
import type { DemoParams } from '../jobs/demo/index.js';
import { createHandler } from '../server/handle.js';
import { replyHeaders, replyParts } from '../server/reply.js';
import { createCursorCodec } from '../server/cursor.js';
import { createAuthTable } from '../server/auth.js';
import { tempDir, testCommon } from './helpers/common.js';
import { publishedDemo, servedOf as served } from './helpers/publishedDemo.js';

const params: DemoParams = { seed: 5, now: Date.parse('2026-03-01T00:00:00Z') / 1000, vaults: null, wallets: 60, days: 60 };

let dir: string;
let world: World;
let original: Snapshot;

beforeAll(async () => {
  dir = tempDir();
  original = await publishedDemo(join(dir, 'w.duckdb'), params);
  world = original.world;
});
afterAll(() => {});

function handlerFor(snapshot: Snapshot) {
  const s = served(snapshot);
  return createHandler({
    common: testCommon(),
    current: () => s,
    jobs: false,
    auth: () => createAuthTable([]),
    cursors: createCursorCodec(Buffer.alloc(32, 7)),
    secondsToNextPublish: () => null,
    started: 0,
  });
}

const get = async (h: ReturnType<typeof handlerFor>, target: string) => {
  const [path, query = ''] = target.split('?');
  const r = await h({
    method: 'GET',
    path: path!,
    query,
    ip: '127.0.0.1',
    authorization: '',
    apiKey: '',
    acceptEncoding: '',
    ifNoneMatch: '',
    requestId: 'fixed-id',
  });
  const headers = Object.fromEntries(replyHeaders(r).filter(([k]) => k === 'ETag' || k === 'Content-Type'));
  return { status: r.status, etag: headers.ETag, body: Buffer.concat(replyParts(r)).toString('utf8') };
};

describe('snapshot directory', () => {
  it('round-trips the world: same pages, ETags and per-request answers', async () => {
    const out = join(dir, 'snap');
    const m = await writeSnapshotDir(out, world, { generation: original.generation, refreshed_at_s: original.refreshed_at_s, stamp: 'test' }, null);
    expect(m.refreshed_at).toBe(original.refreshed_at);
    const loaded = await readSnapshotDir(out);
    expect(loaded.manifest.generation).toBe(original.generation);
    const rebuilt = buildSnapshot(loaded.world, { generation: m.generation, now: m.refreshed_at_s });
    expect(rebuilt.refreshed_at).toBe(original.refreshed_at);
    expect([...rebuilt.pages.keys()]).toEqual([...original.pages.keys()]);
    for (const [key, page] of original.pages) {
      expect(rebuilt.pages.get(key)!.etag, key).toBe(page.etag);
      expect(rebuilt.pages.get(key)!.prefix.equals(page.prefix), key).toBe(true);
    }
    // the world itself: series values, events, wallet views
    let finiteApys = 0;
    for (const [id, s] of world.series) {
      const r = loaded.world.series.get(id)!;
      expect(r.length).toBe(s.length);
      for (const k of ['ts', 'unit_price_f'] as const) expect(r[k].subarray(0, r.length)).toEqual(s[k].subarray(0, s.length));
      // a restored (serving) world keeps no APY columns: each point's is computed on read, to the bit
      expect(keepsApy(s) && !keepsApy(r)).toBe(true);
      for (const d of APY_WINDOW_DAYS) {
        const kept = Array.from(apyColumn(s, d).subarray(0, s.length));
        const onRead = kept.map((_, i) => apyAt(r, d, i));
        expect(onRead).toEqual(kept);
        finiteApys += kept.filter((x) => Number.isFinite(x)).length;
      }
      for (const k of ['total_assets', 'total_supply', 'published_price', 'unit_price'] as const) {
        expect(r[k].words.subarray(0, 2 * r.length)).toEqual(s[k].words.subarray(0, 2 * s.length));
      }
    }
    expect(finiteApys).toBeGreaterThan(1000);
    expect(eventRows(loaded.world.events)).toEqual(eventRows(world.events));
    expect(loaded.world.walletIndex).toEqual(world.walletIndex);
    const items = loaded.world.positionItems!;
    expect(Buffer.from(items.json).equals(Buffer.from(world.positionItems!.json))).toBe(true);
    expect(items.offsets).toEqual(world.positionItems!.offsets);
    expect(items.flags).toEqual(world.positionItems!.flags);
    expect([...items.skipped]).toEqual([...world.positionItems!.skipped]);
    // async requests' terms (DESIGN §11.8) travel with the world
    expect(world.requestTerms!.size).toBeGreaterThan(0);
    expect(loaded.world.requestTerms).toEqual(world.requestTerms);

    // per-request bodies (built from the world on each request) are identical too
    const a = handlerFor(original);
    const b = handlerFor(rebuilt);
    const vault = original.vaultList.visible[0]!.vault_id;
    const wallets = world.events.dict.wallets.values.slice(0, 5);
    const targets = [
      '/v1/vaults',
      `/v1/vaults/${vault}/timeseries?granularity=hour&limit=1000`,
      `/v1/vaults/${vault}/timeseries?granularity=day`,
      '/v1/tvl?include_breakdown=true',
      ...wallets.flatMap((w) => [`/v1/users/${w}/positions`, `/v1/users/${w}/activity`, `/v1/users/${w}/requests`]),
    ];
    const pos = walletPositionList(world, wallets[0]!)[0]!;
    targets.push(`/v1/users/${wallets[0]}/positions/${pos.vault_id}/timeseries`);
    for (const t of targets) {
      const x = await get(a, t);
      expect(x.status, t).toBe(200);
      expect(await get(b, t), t).toEqual(x);
    }
  });

  it('refuses a truncated or bit-flipped file, and a manifest that is not one', async () => {
    const out = join(dir, 'damaged');
    const m = await writeSnapshotDir(out, world, { generation: 3, refreshed_at_s: original.refreshed_at_s, stamp: null }, null);
    const seriesPath = join(out, m.files.series.name);
    const good = readFileSync(seriesPath);
    writeFileSync(seriesPath, good.subarray(0, good.length - 8));
    await expect(readSnapshotDir(out)).rejects.toThrow(CorruptSnapshotError);
    const flipped = Buffer.from(good);
    flipped[flipped.length >> 1]! ^= 1;
    writeFileSync(seriesPath, flipped);
    await expect(readSnapshotDir(out)).rejects.toThrow(/checksum/);
    writeFileSync(seriesPath, good);
    await expect(readSnapshotDir(out)).resolves.toBeTruthy();
    writeFileSync(join(out, 'manifest.json'), '{"format":"vaultd-snapshot/1"');
    await expect(readManifest(out)).rejects.toThrow(CorruptSnapshotError);
  });

  it('dictionaries round-trip whatever their values: one per line, or in the JSON line when a value holds a newline', async () => {
    const out = join(dir, 'strings');
    const values = (w: World) => Object.fromEntries(Object.entries(w.events.dict).map(([k, d]) => [k, [...d.values]]));
    const once = async () => {
      const m = await writeSnapshotDir(out, world, { generation: 4, refreshed_at_s: original.refreshed_at_s, stamp: null }, null);
      expect(m.files.strings.name).toMatch(/^strings-[0-9a-f]{64}\.txt$/);
      return values((await readSnapshotDir(out)).world);
    };
    expect(await once()).toEqual(values(world));
    // a request "hash" with a newline in it (not from a chain, but a string the store may hold)
    world.events.dict.requests.id('0xodd\nvalue');
    world.events.dict.wallets.id('');
    expect(await once()).toEqual(values(world));
  });

  it('price strings round-trip: one per line after the doubles, or in world.json for a token with a newline in a value', async () => {
    const out = join(dir, 'prices');
    const usd = (w: World) => Object.fromEntries([...w.prices].map(([k, p]) => [k, { usd: [...p.usd], ts: [...p.ts], usd_f: [...p.usd_f] }]));
    const once = async () => {
      await writeSnapshotDir(out, world, { generation: 5, refreshed_at_s: original.refreshed_at_s, stamp: null }, null);
      return usd((await readSnapshotDir(out)).world);
    };
    expect(world.prices.size).toBeGreaterThan(1);
    expect(await once()).toEqual(usd(world));
    // a value with a newline (not a decimal, but a string the store may hold), a token with no
    // prices, and one whose every price is the empty string
    const [first, second] = [...world.prices.values()];
    first!.usd = [...first!.usd.slice(0, -1), '1.5\n2'];
    world.prices.set('1:0x00000000000000000000000000000000000000e0', {
      chain_id: 1,
      address: '0x00000000000000000000000000000000000000e0',
      ts: new Float64Array(0),
      usd: [],
      usd_f: new Float64Array(0),
    });
    second!.usd = second!.usd.map(() => '');
    expect(await once()).toEqual(usd(world));
  });

  it("keeps the previous generation's files and removes older ones", async () => {
    const out = join(dir, 'gc');
    const ids = [1, 2, 3].map((g) => ({ generation: g, refreshed_at_s: original.refreshed_at_s, stamp: null }));
    const auths = ids.map((_, k) => ({ cursor_secret: `s${k}`, keys: [] }));
    const m1 = await writeSnapshotDir(out, world, ids[0]!, auths[0]!);
    const m2 = await writeSnapshotDir(out, world, ids[1]!, auths[1]!);
    const m3 = await writeSnapshotDir(out, world, ids[2]!, auths[2]!);
    const names = readdirSync(out);
    expect(names).not.toContain(m1.files.auth!.name);
    expect(names).toContain(m2.files.auth!.name);
    expect(names).toContain(m3.files.auth!.name);
    // unchanged content is one file shared by every generation
    expect(m3.files.series.name).toBe(m1.files.series.name);
    expect(names.filter((n) => n.startsWith('series-'))).toHaveLength(1);
  });

  it('holds at most two generations while a third is written: the files no manifest names go before the write, not after', async () => {
    const out = join(dir, 'peak');
    const ids = [1, 2, 3].map((g) => ({ generation: g, refreshed_at_s: original.refreshed_at_s, stamp: null }));
    const auths = ids.map((_, k) => ({ cursor_secret: `p${k}`, keys: [] }));
    // a directory without a manifest keeps what it holds (nothing of a publish to keep or drop)
    mkdirSync(out, { recursive: true });
    const stray = join(out, `auth-${'0'.repeat(64)}.json`);
    writeFileSync(stray, '{}');
    await removeUnlisted(out);
    expect(existsSync(stray)).toBe(true);
    const m1 = await writeSnapshotDir(out, world, ids[0]!, auths[0]!);
    expect(existsSync(stray)).toBe(false);
    const m2 = await writeSnapshotDir(out, world, ids[1]!, auths[1]!);
    // generation 1 stays beside 2 (a reader may still be loading it) …
    expect(readdirSync(out)).toContain(m1.files.auth!.name);
    // … until the next write starts: while generation 3's files are written, only 2's are there
    const files3 = await writeWorldFiles(out, world);
    expect(readdirSync(out)).not.toContain(m1.files.auth!.name);
    expect(readdirSync(out)).toContain(m2.files.auth!.name);
    // the current generation still loads whole while the next one is being written
    expect((await readSnapshotDir(out)).manifest.generation).toBe(2);
    const m3 = await writeManifest(out, files3, ids[2]!, auths[2]!);
    expect(readdirSync(out)).toContain(m2.files.auth!.name);
    expect((await readSnapshotDir(out)).manifest.generation).toBe(m3.generation);
  });
});

describe('writeJsonObject', () => {
  it("writes JSON.stringify's bytes in pieces, whatever the members (long arrays an element at a time)", async () => {
    const member = fc.oneof(
      fc.jsonValue(),
      fc.array(fc.jsonValue(), { maxLength: 40 }),
      fc.constant(undefined),
      fc.array(
        fc.integer({ min: 150_000, max: 200_000 }).map((n) => 'é"\\n'.repeat(n)),
        { maxLength: 8 },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), member, { maxKeys: 6 }), async (obj) => {
        const pieces: Buffer[] = [];
        let breaths = 0;
        await writeJsonObject({ bytes: (v) => void pieces.push(Buffer.from(v.buffer, v.byteOffset, v.byteLength)), breathe: async () => void breaths++ }, obj);
        expect(Buffer.concat(pieces).toString('utf8')).toBe(JSON.stringify(obj));
        // a member of more than 1 MB is not written in one piece
        if (JSON.stringify(obj).length > 2 << 20) expect(breaths).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });
});

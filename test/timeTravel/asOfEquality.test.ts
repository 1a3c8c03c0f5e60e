// The test that proves time travel (DESIGN §11.6, issue #34 item 3): on the world built to T1,
// every /v1 route asked `?as_of=T0` answers byte for byte the body the world of the same seed
// and --start built to T0 answers without it — apart from request_id, refreshed_at, meta.as_of
// and the cursor's MAC and context hash (servedWorld.ts) — for every vault, slug and wallet of
// the world and every position a wallet ever held, walking every page of the paged routes, at
// an hour boundary, mid-hour (before a vault's first snapshot and inside a pending request's
// life) and a second before a listing. Both worlds are served by real `vaultd serve` processes.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallDemoDb } from '../helpers/cli.js';
import { tempDir, testCommon } from '../helpers/common.js';
import { createStore } from '../../store/store.js';
import { get, inBatches, metaAsOf, nextCursor, normalized, type Served, serveDb, withParam } from './servedWorld.js';

const dir = tempDir('vaultd-asof-');
const WORLD = ['--seed', '7', '--start', '2026-05-01T00:00:00Z', '--wallets', '20', '--days', '12'];
const T1 = '2026-05-13T00:00:00Z';
const seconds = (iso: string) => Date.parse(iso) / 1000;
const GRANULARITIES = ['hour', 'day', 'week', 'month'];

interface Facts {
  vaults: string[];
  slugs: string[];
  wallets: string[];
  pairs: [string, string][];
  firstSnapshot: Map<string, number>;
  /** request hashes with their pending row and their resolution (null: never resolved) */
  requests: { hash: string; pending: number; resolved: number | null }[];
}

async function factsOf(db: string): Promise<Facts> {
  const store = await createStore(testCommon(), { path: db, readOnly: true });
  try {
    const col = async <T>(sql: string) => (await store.rows<{ x: T }>('test.facts', sql)).map((r) => r.x);
    const first = await store.rows<{ id: string; t: bigint }>(
      'test.first',
      'SELECT vault_id AS id, epoch(min(ts))::BIGINT AS t FROM vault_snapshots GROUP BY 1',
    );
    const pairs = await store.rows<{ w: string; v: string }>('test.pairs', 'SELECT DISTINCT wallet AS w, vault_id AS v FROM vault_events ORDER BY 1, 2');
    const requests = await store.rows<{ hash: string; pending: bigint; resolved: bigint | null }>(
      'test.requests',
      `SELECT request_hash AS hash, epoch(min(ts) FILTER (kind LIKE '%_pending'))::BIGINT AS pending,
              epoch(min(ts) FILTER (kind NOT LIKE '%_pending'))::BIGINT AS resolved
         FROM vault_events WHERE request_hash IS NOT NULL AND kind NOT IN ('transfer_in', 'transfer_out') GROUP BY 1`,
    );
    return {
      vaults: await col<string>('SELECT vault_id AS x FROM vaults ORDER BY 1'),
      slugs: await col<string>('SELECT slug AS x FROM vault_groups ORDER BY 1'),
      wallets: await col<string>('SELECT DISTINCT wallet AS x FROM vault_events ORDER BY 1'),
      pairs: pairs.map((p) => [p.w, p.v]),
      firstSnapshot: new Map(first.map((f) => [f.id, Number(f.t)])),
      requests: requests
        .filter((r) => r.pending !== null)
        .map((r) => ({ hash: r.hash, pending: Number(r.pending), resolved: r.resolved === null ? null : Number(r.resolved) })),
    };
  } finally {
    await store.close();
  }
}

/** Every route of the world once, and the paged ones with small limits (walked to their end). */
function paths(f: Facts): { one: string[]; walks: string[] } {
  const one = ['/v1/vaults', '/v1/vaults?include_hidden=true', '/v1/vaults/featured', '/v1/strategies', '/v1/tvl', '/v1/tvl?include_breakdown=true'];
  const walks = ['/v1/vaults?limit=4', '/v1/vaults?limit=4&include_hidden=true'];
  for (const s of f.slugs) one.push(`/v1/vaults/slug/${s}`);
  for (const v of f.vaults) {
    one.push(`/v1/vaults/${v}`, `/v1/vaults/${v}/definition`, `/v1/vaults/${v}/allocations`);
    for (const g of GRANULARITIES) one.push(`/v1/vaults/${v}/timeseries?granularity=${g}`);
    walks.push(`/v1/vaults/${v}/timeseries?granularity=hour&limit=60`, `/v1/vaults/${v}/timeseries?granularity=day&order=desc&limit=3`);
  }
  for (const w of f.wallets) {
    one.push(
      `/v1/users/${w}/positions`,
      `/v1/users/${w}/positions?include_hidden=true`,
      `/v1/users/${w}/activity`,
      `/v1/users/${w}/requests`,
      `/v1/users/${w}/requests?status=expired&include_hidden=true`,
    );
    walks.push(
      `/v1/users/${w}/requests?limit=2&include_hidden=true`,
      `/v1/users/${w}/positions?limit=2&include_hidden=true`,
      `/v1/users/${w}/activity?limit=7`,
      `/v1/users/${w}/activity?limit=9&order=asc&include_hidden=true`,
    );
  }
  for (const [w, v] of f.pairs) {
    one.push(`/v1/users/${w}/positions/${v}`);
    for (const g of GRANULARITIES) one.push(`/v1/users/${w}/positions/${v}/timeseries?granularity=${g}`);
    walks.push(`/v1/users/${w}/positions/${v}/timeseries?granularity=hour&limit=50`);
  }
  return { one, walks };
}

describe('as_of on the later world answers the earlier world, byte for byte', () => {
  const b = join(dir, 'b.duckdb');
  let facts: Facts;
  let later: Served;
  beforeAll(async () => {
    smallDemoDb(b, [...WORLD, '--now', T1]);
    facts = await factsOf(b);
    later = await serveDb(b, join(dir, 'b'));
  });
  afterAll(async () => {
    await later?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const T0S = [
    { t0: '2026-05-06T00:00:00Z', what: 'an hour boundary' },
    { t0: '2026-05-09T10:30:00Z', what: "mid-hour, before a vault's first snapshot, inside a pending request's life" },
    { t0: '2026-05-03T20:59:59Z', what: 'a second before a listing' },
  ];
  for (const { t0, what } of T0S) {
    it(`as_of=${t0} (${what})`, async () => {
      const t = seconds(t0);
      // the instants are what they claim to be in this world
      if (what.includes('first snapshot')) expect([...facts.firstSnapshot.values()].some((s) => s > t)).toBe(true);
      if (what.includes('pending')) expect(facts.requests.some((r) => r.pending <= t && (r.resolved === null || r.resolved > t))).toBe(true);
      if (what.includes('listing')) expect([...facts.firstSnapshot.values()]).toContain(t + 1);

      const a = join(dir, `a-${t}.duckdb`);
      smallDemoDb(a, [...WORLD, '--now', t0]);
      const earlier = await serveDb(a, join(dir, `a-${t}`));
      const mismatches: string[] = [];
      const statuses = new Map<number, number>();
      let pages = 0;
      let echoed = 0;
      /** one page of both, compared; the next cursors of both */
      const compare = async (path: string, nextA: string | null, nextB: string | null) => {
        const pa = nextA === null ? path : withParam(path, 'next', nextA);
        const pb = withParam(nextB === null ? path : withParam(path, 'next', nextB), 'as_of', t0);
        const [ra, rb] = await Promise.all([get(earlier.base, pa), get(later.base, pb)]);
        statuses.set(ra.status, (statuses.get(ra.status) ?? 0) + 1);
        pages++;
        if (ra.status === 200 && nextB === null && metaAsOf(rb.text) === t0) echoed++;
        else if (ra.status === 200 && nextB === null) mismatches.push(`${pb}: meta.as_of is ${metaAsOf(rb.text)}, not ${t0}`);
        if (ra.status !== rb.status || normalized(ra.text) !== normalized(rb.text)) {
          const [na, nb] = [normalized(ra.text), normalized(rb.text)];
          let i = 0;
          while (i < na.length && na[i] === nb[i]) i++;
          const at = Math.max(0, i - 200);
          mismatches.push(`${pb} (from byte ${at})\n  T0 world: ${ra.status} ${na.slice(at, at + 500)}\n  as_of:    ${rb.status} ${nb.slice(at, at + 500)}`);
          return { nextA: null, nextB: null };
        }
        return { nextA: nextCursor(ra.text), nextB: nextCursor(rb.text) };
      };
      try {
        const { one, walks } = paths(facts);
        await inBatches(one, 8, async (path) => {
          await compare(path, null, null);
        });
        await inBatches(walks, 4, async (path) => {
          let next = await compare(path, null, null);
          while (next.nextA !== null && next.nextB !== null) next = await compare(path, next.nextA, next.nextB);
          if ((next.nextA === null) !== (next.nextB === null)) mismatches.push(`${path}: one walk ended before the other`);
        });
        // an answer as of T0 is not the newest answer's: no shared ETag, so no 304 for it
        const positions = `/v1/users/${facts.wallets[0]}/positions`;
        const newest = await fetch(`${later.base}${positions}`);
        await newest.arrayBuffer();
        const etag = newest.headers.get('etag')!;
        const past = await fetch(`${later.base}${withParam(positions, 'as_of', t0)}`, { headers: { 'If-None-Match': etag } });
        await past.arrayBuffer();
        expect(past.status).toBe(200);
        expect(past.headers.get('etag')).not.toBe(etag);
        // the latest world is not the T0 world: without as_of the later world answers otherwise
        const [tvlA, tvlB] = await Promise.all([get(earlier.base, '/v1/tvl'), get(later.base, '/v1/tvl')]);
        expect(normalized(tvlA.text)).not.toBe(normalized(tvlB.text));
      } finally {
        await earlier.stop();
      }
      expect(mismatches.slice(0, 15).join('\n')).toBe('');
      // not a comparison of errors: most answers are real pages
      expect(statuses.get(200) ?? 0).toBeGreaterThan(pages * 0.6);
      expect(echoed).toBeGreaterThan(0);
    });
  }
});

// USD prices from the devnet's Chainlink-like feeds (DESIGN §6.3): the hourly rule against a
// naive oracle (fast-check), then over real JSON-RPC — every hour's row equals the feed's own
// latestRoundData at the block of that hour, a second round adds nothing, a faulty RPC ends in
// the same table, and a reorg under the feed's checkpoint rescans it.
import fc from 'fast-check';
import { createPublicClient, http, type Address, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { createStore, type Store } from '../../store/store.js';
import { formatUnits, trimZeros } from '../../model/format/numbers.js';
import { testCommon } from '../../test/helpers/common.js';
import { startFaultyRpcProxy, type FaultyRpcProxy } from '../../test/helpers/chain/faultyRpcProxy.js';
import { scenarioConfig, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';
import { ingestOnce } from '../chain/ingestOnce.js';
import { chainlinkLikeAggregatorAbi } from '../../devnet/abis.js';
import { devnetChain } from '../../devnet/chain.js';
import { createTxQueue } from '../../devnet/txQueue.js';
import { aggregatorAbi, hourlyAnswers, loadFeedState, type AnswerUpdate } from './chainlinkProvider.js';
import { createPriceRuntime, runPriceRound } from './priceJob.js';

const HOUR = 3600;

describe('hourlyAnswers', () => {
  /** The obviously-correct rule: per hour, scan every update ever seen for the newest at or before it. */
  function oracle(seed: AnswerUpdate | null, updates: AnswerUpdate[], first: number, end: number, maxAge: number, decimals: number) {
    const all = seed ? [seed, ...updates] : updates;
    const rows: { ts: number; usd: string }[] = [];
    for (let h = first; h <= end; h += HOUR) {
      let best: AnswerUpdate | null = null;
      for (const u of all) if (u.updatedAt <= h) best = u;
      if (best && best.answer > 0n && h - best.updatedAt <= maxAge) rows.push({ ts: h, usd: formatUnits(best.answer, decimals) });
    }
    return rows;
  }

  const T0 = 1_700_000_000 - (1_700_000_000 % HOUR);
  const update = fc.record({ answer: fc.bigInt({ min: -5n, max: 10n ** 12n }), dt: fc.integer({ min: 0, max: 30 * HOUR }) });

  it('matches the oracle, however the updates are split into ranges', () => {
    fc.assert(
      fc.property(
        fc.array(update, { maxLength: 40 }),
        fc.option(fc.record({ answer: fc.bigInt({ min: 1n, max: 10n ** 10n }), back: fc.integer({ min: 0, max: 100 * HOUR }) }), { nil: null }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.integer({ min: HOUR, max: 72 * HOUR }),
        fc.integer({ min: 0, max: 18 }),
        (raw, seedRaw, cuts, maxAge, decimals) => {
          let t = T0;
          const updates = raw.map((u) => ({ answer: u.answer, updatedAt: (t += u.dt) }));
          const end = Math.floor((t + 5 * HOUR) / HOUR) * HOUR;
          const seed = seedRaw ? { answer: seedRaw.answer, updatedAt: T0 - seedRaw.back } : null;
          const want = oracle(seed, updates, T0, end, maxAge, decimals);

          // the ranges: cut the update list (and the hours) at arbitrary points
          const points = [...new Set(cuts.map((c) => (updates.length === 0 ? 0 : c % updates.length)))].sort((a, b) => a - b);
          let state = { answer: seed?.answer ?? null, answer_updated_at: seed?.updatedAt ?? null, last_hour: T0 - HOUR, decimals };
          const got: { ts: number; usd: string }[] = [];
          let start = 0;
          for (const p of [...points, updates.length]) {
            const chunk = updates.slice(start, p);
            if (p < start) continue;
            // a range ends just before the next range's first update (or at the end)
            const next = updates[p];
            const rangeEnd = next ? Math.floor((next.updatedAt - 1) / HOUR) * HOUR : end;
            const r = hourlyAnswers(state, chunk, Math.max(rangeEnd, state.last_hour), maxAge);
            got.push(...r.rows);
            state = { ...state, answer: r.answer, answer_updated_at: r.updatedAt, last_hour: r.lastHour };
            start = p;
          }
          const tail = hourlyAnswers(state, [], end, maxAge);
          got.push(...tail.rows);
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('formats answers exactly at the feed decimals and skips stale or non-positive answers', () => {
    const r = hourlyAnswers(
      { answer: null, answer_updated_at: null, last_hour: T0 - HOUR, decimals: 8 },
      [
        { answer: 100_012_345_678n, updatedAt: T0 },
        { answer: 0n, updatedAt: T0 + 2 * HOUR },
        { answer: 5n, updatedAt: T0 + 3 * HOUR + 1 },
      ],
      T0 + 7 * HOUR,
      2 * HOUR,
    );
    expect(r.rows).toEqual([
      { ts: T0, usd: '1000.12345678' },
      { ts: T0 + HOUR, usd: '1000.12345678' },
      { ts: T0 + 4 * HOUR, usd: '0.00000005' },
      { ts: T0 + 5 * HOUR, usd: '0.00000005' },
    ]);
  });
});

describe('the Chainlink provider over the devnet', () => {
  let sc: Scenario;
  let client: PublicClient;
  let proxy: FaultyRpcProxy;
  const stores: Store[] = [];
  const open = async () => {
    const s = await createStore(testCommon(), { path: ':memory:' });
    stores.push(s);
    return s;
  };

  beforeAll(async () => {
    sc = await startScenario({ chainId: 4545, days: 3, seed: 21, wallets: 6 });
    client = createPublicClient({ chain: devnetChain(4545, sc.devnet.rpcUrl), transport: http(sc.devnet.rpcUrl), cacheTime: 0 });
    proxy = await startFaultyRpcProxy(sc.devnet.rpcUrl);
  });

  afterAll(async () => {
    for (const s of stores) await s.close();
    await proxy?.close();
    await sc?.devnet.stop();
  });

  const feeds = () => {
    const m = sc.manifest;
    return [...new Map(m.vaults.map((v) => [v.numeraire.address.toLowerCase(), { aggregator: v.aggregator, decimals: v.numeraire.decimals }]))];
  };

  it('writes every hour’s price as the feed’s latestRoundData at that hour’s block, exactly; a second round adds nothing', async () => {
    const m = sc.manifest;
    const common = testCommon();
    const store = await open();
    const config = scenarioConfig(m);
    await ingestOnce(common, store, config);
    const runtime = createPriceRuntime(common, config);
    const first = await runPriceRound(common, store, runtime, m.endTime + 600);
    expect(first.providers).toEqual([expect.objectContaining({ provider: 'chainlink:4545', status: 'ok', tokens: 3 })]);
    const hours = (m.endTime - m.startTime) / HOUR + 1;
    expect(first.rows).toBe(hours * 3);

    // the hour's block: the one the indexer read the vaults at
    const blocks = new Map(
      (
        await store.rows<{ ts: number; block: number }>(
          'test.blocks',
          `SELECT DISTINCT epoch(ts)::DOUBLE AS ts, block_number::DOUBLE AS block FROM vault_snapshots`,
        )
      ).map((r) => [r.ts, r.block]),
    );
    const stored = await store.rows<{ address: string; ts: number; usd: string; source: string }>(
      'test.prices',
      'SELECT address, epoch(ts)::DOUBLE AS ts, usd::VARCHAR AS usd, source FROM prices ORDER BY address, ts',
    );
    for (const [token, feed] of feeds()) {
      const mine = stored.filter((r) => r.address === token);
      expect(mine.map((r) => r.ts)).toEqual(Array.from({ length: hours }, (_, i) => m.startTime + i * HOUR));
      expect(new Set(mine.map((r) => r.source))).toEqual(new Set([`chainlink:4545:${feed.aggregator.toLowerCase()}`]));
      // every 7th hour and the last: the chain's own answer at that block
      for (const row of mine.filter((_, i) => i % 7 === 0 || i === mine.length - 1)) {
        const [, answer] = await client.readContract({
          address: feed.aggregator,
          abi: aggregatorAbi,
          functionName: 'latestRoundData',
          blockNumber: BigInt(blocks.get(row.ts)!),
        });
        expect(Number(row.usd)).toBeGreaterThan(0);
        expect(trimZeros(row.usd)).toBe(formatUnits(answer, 8));
      }
    }
    const before = await tableHashes(store, ['prices']);
    const again = await runPriceRound(common, store, runtime, m.endTime + 900);
    expect(again.rows).toBe(0);
    expect(again.providers[0]!.status).toBe('ok');
    expect(await tableHashes(store, ['prices'])).toEqual(before);
  });

  it('through a faulty RPC (errors, 429s, range limits, garbage) the prices table equals a clean run’s', async () => {
    const m = sc.manifest;
    const clean = await open();
    const common = testCommon();
    await runPriceRound(common, clean, createPriceRuntime(common, scenarioConfig(m)), m.endTime + 600);

    proxy.setPlan({
      seed: 5,
      rates: { http500: 0.08, rate429: 0.08, rpcInternal: 0.05, truncated: 0.05, garbage: 0.05 },
      maxLogRange: 10,
      rangeStyles: ['alchemy', 'infura', 'quicknode'],
    });
    const store = await open();
    const faulty = createPriceRuntime(common, scenarioConfig(m, { rpcUrls: [proxy.url] }), {
      chainlink: { initialRange: 64, rpc: { timeoutMs: 2000, batch: false, retry: { attempts: 8, baseMs: 1, maxMs: 5 } } },
    });
    let result = await runPriceRound(common, store, faulty, m.endTime + 600);
    for (let i = 0; i < 5 && result.providers[0]!.status !== 'ok'; i++) result = await runPriceRound(common, store, faulty, m.endTime + 600);
    proxy.setPlan({});
    expect(result.providers[0]!.status).toBe('ok');
    expect(Object.values(proxy.stats.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(Object.values(proxy.stats.ranges).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(await tableHashes(store, ['prices'])).toEqual(await tableHashes(clean, ['prices']));
  });

  it('a reorg under the feed checkpoint rescans the feed: the orphaned answers disappear, the new branch’s appear', async () => {
    const m = sc.manifest;
    const provider = sc.devnet.provider;
    const [token, feed] = feeds()[1]!;
    const common = testCommon();
    const config = scenarioConfig(m);
    const store = await open();
    const runtime = createPriceRuntime(common, config);
    const snapshot = (await provider.request({ method: 'evm_snapshot', params: [] })) as string;
    const push = async (answers: bigint[]) => {
      const q = createTxQueue(provider);
      for (let i = 0; i < answers.length; i++) {
        await q.write(m.actors.deployer as Address, {
          address: feed.aggregator,
          abi: chainlinkLikeAggregatorAbi,
          functionName: 'updateAnswer',
          args: [answers[i]!],
        });
        await q.closeBlock(m.endTime + (i + 1) * HOUR);
      }
    };
    await push([111_00000000n, 112_00000000n, 113_00000000n]);
    await runPriceRound(common, store, runtime, m.endTime + 3 * HOUR + 60);
    const usdAt = async (s: Store, ts: number) =>
      (await s.rows<{ usd: string }>('test.usd', 'SELECT usd::VARCHAR AS usd FROM prices WHERE address = $1 AND epoch(ts) = $2', [token, ts]))[0]?.usd;
    expect(Number(await usdAt(store, m.endTime + 2 * HOUR))).toBe(112);

    expect(await provider.request({ method: 'evm_revert', params: [snapshot] })).toBe(true);
    await push([221_00000000n, 222_00000000n, 223_00000000n, 224_00000000n]);
    const after = await runPriceRound(common, store, runtime, m.endTime + 4 * HOUR + 60);
    expect(after.providers[0]!.status).toBe('ok');
    expect(Number(await usdAt(store, m.endTime + 2 * HOUR))).toBe(222);
    expect(Number(await usdAt(store, m.endTime + 4 * HOUR))).toBe(224);
    const state = await loadFeedState(store, 4545, feed.aggregator.toLowerCase());
    expect(state).toMatchObject({ answer: 224_00000000n, decimals: 8, block: Number(await client.getBlockNumber()) });

    const fresh = await open();
    await runPriceRound(common, fresh, createPriceRuntime(common, config), m.endTime + 4 * HOUR + 60);
    expect(await tableHashes(store, ['prices'])).toEqual(await tableHashes(fresh, ['prices']));
  });
});

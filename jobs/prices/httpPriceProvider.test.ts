import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import type { PriceRow } from '../../model/rows.js';
import { JsonNumber } from './exactJson.js';
import { createHttpPriceProvider, nearestPerHour, priceString, unixSeconds, type HttpPriceProviderConfig } from './httpPriceProvider.js';
import { HOUR, hourFloor, type PriceRoundContext, type PriceToken } from './priceProvider.js';
import {
  CHART_MAX_SPAN,
  generateCoin,
  startCoinPriceFixture,
  type CoinPriceFixture,
  type FixtureCoin,
  type FixtureObservation,
} from '../../test/helpers/prices/coinPriceFixture.js';

const DAY = 86_400;
const NOW = 1_717_200_000 + 1234; // 2024-06-01T00:20:34Z: not on the hour
const SECRET = 'SECRET-api-key-123';

const A = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const B = '0x4200000000000000000000000000000000000006';
const C = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const MISSING = '0x000000000000000000000000000000000000dead';
const GARBAGE = '0x000000000000000000000000000000000000bad0';

const chains = [
  { chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: [], finality_blocks: 12 },
  { chain_id: 8453, slug: 'base-mainnet', name: 'Base', rpc_urls: [], finality_blocks: 12 },
] as Config['chains'];

/** Coins spanning 220 days before NOW: a stablecoin, an ETH-like coin, and one with a 30-hour and a 3-day gap. */
function coins(): FixtureCoin[] {
  const from = NOW - 220 * DAY;
  const to = NOW + 6 * HOUR;
  const gapStart = hourFloor(NOW - 10 * DAY);
  return [
    generateCoin({ seed: 7, label: 'usdc', llamaKey: `ethereum:${A}`, geckoId: 'usd-coin', shape: 'stable', from, to }),
    generateCoin({ seed: 7, label: 'weth', llamaKey: `base:${B}`, geckoId: 'weth', shape: 'eth', from, to }),
    generateCoin({
      seed: 7,
      label: 'tiny',
      llamaKey: `arbitrum:${C}`,
      geckoId: 'tiny-coin',
      shape: 'tiny',
      from,
      to,
      gaps: [
        [gapStart, gapStart + 29 * HOUR],
        [hourFloor(NOW - 100 * DAY), hourFloor(NOW - 97 * DAY)],
      ],
    }),
  ];
}

// ---- the oracle: from the fixture's source strings, independent of the provider's code ----

/** A price literal as the stored string (decimal.js, truncated at 18), or null when it must be rejected. */
function oraclePrice(literal: string): string | null {
  let text = literal;
  if (literal.startsWith('"')) text = JSON.parse(literal) as string;
  if (literal === 'null' || !/^-?\d/.test(text)) return null;
  const D = Decimal.clone({ precision: 200 });
  const d = new D(text);
  if (d.isNegative() && !d.isZero()) return null;
  const s = d.toDecimalPlaces(18, Decimal.ROUND_DOWN).toFixed();
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** Naive: the observation nearest to h within tol, ties to the earlier. */
function naiveNearest<T extends { t: number }>(obs: readonly T[], h: number, tol: number): T | undefined {
  let best: T | undefined;
  for (const o of obs) {
    const d = Math.abs(o.t - h);
    if (d > tol) continue;
    if (best === undefined || d < Math.abs(best.t - h) || (d === Math.abs(best.t - h) && o.t < best.t)) best = o;
  }
  return best;
}

/**
 * The rows a round must write for a coin: hours from `from` before the newest from history
 * (all observations up to now), the newest hour from the current price (the last observation).
 */
function expectedRows(coin: FixtureCoin, chainId: number, address: string, from: number, now: number, tol: number, source: string): PriceRow[] {
  const seen = coin.observations.filter((o) => o.t <= now);
  const newest = hourFloor(now);
  const rows: PriceRow[] = [];
  const add = (ts: number, o: FixtureObservation | undefined) => {
    const usd = o ? oraclePrice(o.price) : null;
    if (usd !== null) rows.push({ chain_id: chainId, address, ts, usd, source });
  };
  for (let h = from; h < newest; h += HOUR) add(h, naiveNearest(seen, h, tol));
  if (from <= newest) add(newest, naiveNearest(seen.slice(-1), newest, tol));
  return rows;
}

// ---- a fake round context: commit collects rows, first writer of a token-hour wins ----

interface FakeRound {
  ctx: PriceRoundContext;
  stored: PriceRow[];
  logs: string[];
  commits: number[];
}

function fakeRound(opts: { now: number; tokens?: PriceToken[]; historyStart?: number; stored?: PriceRow[]; logs?: string[] }): FakeRound {
  const stored = opts.stored ?? [];
  const logs = opts.logs ?? [];
  const commits: number[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const ctx: PriceRoundContext = {
    common: undefined as unknown as Common,
    logger,
    now: opts.now,
    chains,
    tokens: opts.tokens ?? [],
    lastStored(chainId, address) {
      const ts = stored.filter((r) => r.chain_id === chainId && r.address === address).map((r) => r.ts);
      return ts.length > 0 ? Math.max(...ts) : null;
    },
    historyStart: () => opts.historyStart ?? opts.now - 1000 * DAY,
    async commit(rows) {
      let added = 0;
      for (const r of rows) {
        expect(r.ts % HOUR).toBe(0);
        expect(r.address).toBe(r.address.toLowerCase());
        if (stored.some((s) => s.chain_id === r.chain_id && s.address === r.address && s.ts === r.ts)) continue;
        stored.push(r);
        added++;
      }
      commits.push(rows.length);
      return added;
    },
    read: () => Promise.reject(new Error('not used')),
  };
  return { ctx, stored, logs, commits };
}

const sortRows = (rows: readonly PriceRow[]) => [...rows].sort((x, y) => x.chain_id - y.chain_id || x.address.localeCompare(y.address) || x.ts - y.ts);

function config(base: string, over: Partial<HttpPriceProviderConfig> = {}): HttpPriceProviderConfig {
  return {
    kind: 'http',
    format: 'defillama',
    base_url: base,
    headers: { 'x-api-key': SECRET },
    timeout_ms: 5_000,
    chain_names: {},
    tolerance_seconds: 1800,
    backfill_days: 365,
    ...over,
  };
}

const fastRetry = { retry: { attempts: 4, baseMs: 1, maxMs: 5 } };

async function roundError(p: ReturnType<typeof createHttpPriceProvider>, ctx: PriceRoundContext): Promise<VaultdError> {
  try {
    await p.round(ctx);
  } catch (e) {
    expect(e).toBeInstanceOf(VaultdError);
    return e as VaultdError;
  }
  throw new Error('expected the round to fail');
}

let fixture: CoinPriceFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('nearestPerHour', () => {
  it('takes the nearest observation within the tolerance, ties to the earlier', () => {
    const h = 100 * HOUR;
    const obs = [
      { t: h + 3 * HOUR + 1801, id: 'late' }, // 1801 s after h+3h, 1799 s before h+4h
      { t: h + 900, id: 'tie-late' },
      { t: h - 900, id: 'tie-early' },
      { t: h + 3 * HOUR - 1800, id: 'at-tolerance' }, // exactly 1800 s from both h+2h and h+3h
    ];
    expect(nearestPerHour(obs, h - HOUR, h + 4 * HOUR, 1800).map((x) => [x.ts, x.obs.id])).toEqual([
      [h, 'tie-early'],
      [h + 2 * HOUR, 'at-tolerance'],
      [h + 3 * HOUR, 'at-tolerance'],
      [h + 4 * HOUR, 'late'],
    ]);
    expect(nearestPerHour(obs, h, h, 0)).toEqual([]);
    expect(nearestPerHour([], h, h + HOUR, 1800)).toEqual([]);
  });

  it('matches a naive oracle for any observations (property)', () => {
    // dense around a few hours, with offsets often from a small set, so ties (h ± d), equal
    // times and exact-tolerance distances are common
    const offsetArb = fc.oneof(fc.integer({ min: -3700, max: 3700 }), fc.constantFrom(-1800, -900, -300, 0, 300, 900, 1800));
    const tArb = fc.tuple(fc.integer({ min: 0, max: 9 }), offsetArb).map(([h, off]) => h * HOUR + off);
    const tolArb = fc.oneof(fc.integer({ min: 0, max: 3600 }), fc.constantFrom(0, 300, 900, 1800, 3600));
    const obsArb = fc.array(fc.record({ t: tArb, id: fc.nat() }), { minLength: 0, maxLength: 40, size: 'large' });
    fc.assert(
      fc.property(obsArb, fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 6 }), tolArb, (obs, fromH, len, tol) => {
        const from = fromH * HOUR;
        const to = from + len * HOUR;
        const want: { ts: number; obs: (typeof obs)[number] }[] = [];
        for (let h = from; h <= to; h += HOUR) {
          // naive, on the input order: nearest, then earlier, then first given
          let best: (typeof obs)[number] | undefined;
          for (const o of obs) {
            const d = Math.abs(o.t - h);
            if (d <= tol && (best === undefined || d < Math.abs(best.t - h) || (d === Math.abs(best.t - h) && o.t < best.t))) best = o;
          }
          if (best) want.push({ ts: h, obs: best });
        }
        expect(nearestPerHour(obs, from, to, tol)).toEqual(want);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('priceString and unixSeconds', () => {
  it('keeps the exact digits, truncated at 18 places', () => {
    const p = (text: string) => priceString(new JsonNumber(text));
    expect(p('0.99987654321')).toEqual({ ok: true, usd: '0.99987654321' });
    expect(p('9.9987654321e-1')).toEqual({ ok: true, usd: '0.99987654321' });
    expect(p('3.0123456789012E+3')).toEqual({ ok: true, usd: '3012.3456789012' });
    expect(p('0.1234567890123456789999')).toEqual({ ok: true, usd: '0.123456789012345678' });
    expect(p('1')).toEqual({ ok: true, usd: '1' });
    expect(p('0')).toEqual({ ok: true, usd: '0' });
    expect(p('-0')).toEqual({ ok: true, usd: '0' });
    expect(priceString(' 0.9991 ')).toEqual({ ok: true, usd: '0.9991' });
  });

  it('error: negative, non-numeric and oversized prices are rejected', () => {
    expect(priceString(new JsonNumber('-0.5'))).toEqual({ ok: false, reason: '-0.5 is negative' });
    expect(priceString(new JsonNumber('-1e-30'))).toEqual({ ok: false, reason: '-1e-30 is negative' });
    expect(priceString('n/a')).toEqual({ ok: false, reason: '"n/a" is not a number' });
    expect(priceString(null)).toEqual({ ok: false, reason: 'null, not a number' });
    expect(priceString({ usd: '1' })).toEqual({ ok: false, reason: 'an object, not a number' });
    expect(priceString(new JsonNumber('1e20'))).toEqual({ ok: false, reason: '1e20 does not fit DECIMAL(38,18)' });
  });

  it('reads seconds and milliseconds exactly', () => {
    expect(unixSeconds(new JsonNumber('1700000000'), 's')).toBe(1700000000);
    expect(unixSeconds(new JsonNumber('1700000000999'), 'ms')).toBe(1700000000);
    expect(unixSeconds(new JsonNumber('1.7e12'), 'ms')).toBe(1700000000);
    expect(unixSeconds(new JsonNumber('-5'), 's')).toBeNull();
    expect(unixSeconds('soon', 's')).toBeNull();
  });
});

describe('http price provider: DefiLlama format', () => {
  const tokens: PriceToken[] = [
    { chain_id: 1, address: A, symbol: 'USDC' }, // key from the chain's slug
    { chain_id: 8453, address: B, symbol: 'WETH' }, // slug "base-mainnet" overridden by chain_names
    { chain_id: 42161, address: C, symbol: 'TINY' }, // no configured chain: built-in name "arbitrum"
  ];

  it('backfills hour by hour with exact decimal strings, paging the chart endpoint', async () => {
    const cs = coins();
    fixture = await startCoinPriceFixture({ now: NOW, coins: cs });
    const provider = createHttpPriceProvider(config(fixture.url, { backfill_days: 40, chain_names: { '8453': 'base' } }), fastRetry);
    expect(provider.name).toBe('http:defillama');
    const r = fakeRound({ now: NOW, tokens });
    const result = await provider.round(r.ctx);

    const from = hourFloor(NOW - 40 * DAY);
    const want = sortRows([
      ...expectedRows(cs[0]!, 1, A, from, NOW, 1800, 'http:defillama'),
      ...expectedRows(cs[1]!, 8453, B, from, NOW, 1800, 'http:defillama'),
      ...expectedRows(cs[2]!, 42161, C, from, NOW, 1800, 'http:defillama'),
    ]);
    expect(sortRows(r.stored)).toEqual(want);
    expect(want.length).toBeGreaterThan(3 * 40 * 24 * 0.8);
    expect(result).toEqual({ rows: want.length, tokens: 3, oldest: from });
    // the gap has no rows; exponent-notation and long-fraction sources were seen
    const gapStart = hourFloor(NOW - 10 * DAY);
    expect(r.stored.filter((x) => x.address === C && x.ts >= gapStart + HOUR && x.ts <= gapStart + 28 * HOUR)).toEqual([]);
    const used = new Set(r.stored.map((x) => x.usd));
    expect(cs.flatMap((c) => c.observations).some((o) => /e/i.test(o.price) && used.has(oraclePrice(o.price)!))).toBe(true);

    const charts = fixture.requests.filter((q) => q.path.startsWith('/chart/'));
    expect(charts.map((q) => Number(q.query.get('span')))).toEqual([500, 960 - 500]);
    expect(charts.every((q) => q.query.get('period') === '1h' && q.query.get('searchWidth') === '1800')).toBe(true);
    expect(charts[0]!.path).toBe(`/chart/ethereum:${A},base:${B},arbitrum:${C}`);
    expect(Number(charts[1]!.query.get('start'))).toBe(from + 500 * HOUR);
    expect(fixture.requests.filter((q) => q.path.startsWith('/prices/current/'))).toHaveLength(1);
    expect(fixture.requests.every((q) => q.headers['x-api-key'] === SECRET)).toBe(true);
    expect(r.logs.join('\n')).not.toContain(SECRET);
  });

  it('resumes after the newest stored hour, and a repeated round adds nothing', async () => {
    const cs = coins();
    const now2 = NOW + 2 * HOUR + 100;
    fixture = await startCoinPriceFixture({ now: NOW, coins: cs });
    const provider = createHttpPriceProvider(config(fixture.url, { backfill_days: 2, chain_names: { '8453': 'base' } }), fastRetry);
    const r1 = fakeRound({ now: NOW, tokens });
    await provider.round(r1.ctx);
    const lastOf = (addr: string) => Math.max(...r1.stored.filter((x) => x.address === addr).map((x) => x.ts));
    const lastStored = new Map([A, B, C].map((a) => [a, lastOf(a)]));
    const last = (addr: string) => lastStored.get(addr)!;
    await fixture.close();

    fixture = await startCoinPriceFixture({ now: now2, coins: cs });
    const provider2 = createHttpPriceProvider(config(fixture.url, { backfill_days: 2, chain_names: { '8453': 'base' } }), fastRetry);
    const before = [...r1.stored];
    const r2 = fakeRound({ now: now2, tokens, stored: r1.stored });
    const result = await provider2.round(r2.ctx);
    const added = r2.stored.slice(before.length);
    const want = sortRows([
      ...expectedRows(cs[0]!, 1, A, last(A) + HOUR, now2, 1800, 'http:defillama'),
      ...expectedRows(cs[1]!, 8453, B, last(B) + HOUR, now2, 1800, 'http:defillama'),
      ...expectedRows(cs[2]!, 42161, C, last(C) + HOUR, now2, 1800, 'http:defillama'),
    ]);
    expect(sortRows(added)).toEqual(want);
    expect(result.rows).toBe(want.length);

    const again = await provider2.round(fakeRound({ now: now2, tokens, stored: r2.stored }).ctx);
    expect(again.rows).toBe(0);
  });

  it('retries a 429 and a 500, then succeeds', async () => {
    const cs = coins();
    fixture = await startCoinPriceFixture({ now: NOW, coins: cs });
    fixture.failNext('/prices/current/', [429, 500]);
    fixture.failNext('/chart/', [503]);
    const logs: string[] = [];
    const provider = createHttpPriceProvider(config(fixture.url, { backfill_days: 1, chain_names: { '8453': 'base' } }), fastRetry);
    const r = fakeRound({ now: NOW, tokens, logs });
    await provider.round(r.ctx);
    const from = hourFloor(NOW - DAY);
    expect(sortRows(r.stored)).toEqual(
      sortRows([
        ...expectedRows(cs[0]!, 1, A, from, NOW, 1800, 'http:defillama'),
        ...expectedRows(cs[1]!, 8453, B, from, NOW, 1800, 'http:defillama'),
        ...expectedRows(cs[2]!, 42161, C, from, NOW, 1800, 'http:defillama'),
      ]),
    );
    expect(fixture.requests.filter((q) => q.path.startsWith('/prices/current/'))).toHaveLength(3);
    expect(fixture.requests.filter((q) => q.path.startsWith('/chart/'))).toHaveLength(2);
    const retries = logs.map((l) => JSON.parse(l) as { fault?: string; url?: string }).filter((l) => l.fault);
    expect(retries.map((l) => l.fault)).toEqual(['server', 'rate_limited', 'server']);
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it('error: 5xx past the retry bound fails the round after committing the history', async () => {
    fixture = await startCoinPriceFixture({ now: NOW, coins: coins() });
    fixture.failNext('/prices/current/', [500, 500, 500, 500]);
    const provider = createHttpPriceProvider(config(fixture.url, { backfill_days: 1, chain_names: { '8453': 'base' } }), fastRetry);
    const r = fakeRound({ now: NOW, tokens });
    const e = await roundError(provider, r.ctx);
    expect(e.code).toBe('SOURCE_FAILED');
    expect(e.message).toBe(
      `http:defillama: 3 of 3 token(s) not priced: GET ${fixture.url}/prices/current/ethereum:${A},base:${B},arbitrum:${C} answered HTTP 500 — the server failed; check its status page or try later`,
    );
    expect(e.message).not.toContain(SECRET);
    // the past hours were stored; the newest was not
    expect(r.stored.length).toBeGreaterThan(40);
    expect(r.stored.every((x) => x.ts < hourFloor(NOW))).toBe(true);
  });

  it('error: a coin the API does not know fails alone; the others are stored', async () => {
    const cs = coins();
    fixture = await startCoinPriceFixture({ now: NOW, coins: cs });
    const provider = createHttpPriceProvider(config(fixture.url, { backfill_days: 0 }), fastRetry);
    const r = fakeRound({ now: NOW, tokens: [tokens[0]!, { chain_id: 1, address: MISSING, symbol: 'X' }] });
    const e = await roundError(provider, r.ctx);
    expect(e.message).toBe(
      `http:defillama: 1 of 2 token(s) not priced: GET ${fixture.url}/prices/current/ethereum:${A},ethereum:${MISSING} has no price for "ethereum:${MISSING}" — check the token address and its DefiLlama chain name (chain_names), or set its id`,
    );
    expect(r.stored).toEqual(expectedRows(cs[0]!, 1, A, hourFloor(NOW), NOW, 1800, 'http:defillama'));
  });

  it('error: garbage JSON names the URL; history already fetched for other tokens is kept', async () => {
    const cs = coins();
    fixture = await startCoinPriceFixture({ now: NOW, coins: cs, garbage: ['coingecko:garbage-coin'] });
    const provider = createHttpPriceProvider(
      config(fixture.url, {
        backfill_days: 2,
        tokens: [
          { chain_id: 1, address: A },
          { chain_id: 1, address: GARBAGE, id: 'coingecko:garbage-coin' },
        ],
      }),
      fastRetry,
    );
    // the garbage token has recent prices stored, so its history is asked for separately
    const stored: PriceRow[] = [{ chain_id: 1, address: GARBAGE, ts: hourFloor(NOW) - HOUR, usd: '1', source: 'x' }];
    const r = fakeRound({ now: NOW, stored });
    const e = await roundError(provider, r.ctx);
    expect(e.message).toBe(
      `http:defillama: 2 of 2 token(s) not priced: GET ${fixture.url}/prices/current/ethereum:${A},coingecko:garbage-coin returned a body that is not JSON (Unexpected end of JSON input (unterminated string) at position 43) — check that the URL points at a JSON API`,
    );
    const from = hourFloor(NOW - 2 * DAY);
    const want = expectedRows(cs[0]!, 1, A, from, NOW, 1800, 'http:defillama').filter((x) => x.ts < hourFloor(NOW));
    expect(sortRows(r.stored.filter((x) => x.address === A))).toEqual(want);
    // garbage is not retried
    expect(fixture.requests.filter((q) => q.path.startsWith('/prices/current/'))).toHaveLength(1);
  });

  it('error: a timeout names the URL and timeout_ms', async () => {
    fixture = await startCoinPriceFixture({ now: NOW, coins: coins() });
    fixture.failNext('/prices/current/', ['hang']);
    const provider = createHttpPriceProvider(config(fixture.url, { backfill_days: 0, timeout_ms: 300 }), fastRetry);
    // the fixture never answers: that the round ends at all is the client's timeout firing (no clock needed)
    const e = await roundError(provider, fakeRound({ now: NOW, tokens: [tokens[0]!] }).ctx);
    expect(e.message).toBe(
      `http:defillama: 1 of 1 token(s) not priced: GET ${fixture.url}/prices/current/ethereum:${A} timed out after 300 ms — check that the host is up, or raise timeout_ms`,
    );
  });

  it('error: JSON of the wrong shape says which API base_url should point at', async () => {
    fixture = await startCoinPriceFixture({ now: NOW, coins: coins() });
    const provider = createHttpPriceProvider(config(`${fixture.url}/wrongshape`, { backfill_days: 0 }), fastRetry);
    const e = await roundError(provider, fakeRound({ now: NOW, tokens: [tokens[0]!] }).ctx);
    expect(e.message).toBe(
      `http:defillama: 1 of 1 token(s) not priced: GET ${fixture.url}/wrongshape/prices/current/ethereum:${A} answered JSON of the wrong shape (no "coins" object) — check that base_url points at the DefiLlama coins API`,
    );
  });

  it('skips tokens on a chain with no DefiLlama name, with a warning', async () => {
    fixture = await startCoinPriceFixture({ now: NOW, coins: coins() });
    const logs: string[] = [];
    const provider = createHttpPriceProvider(config(fixture.url, { backfill_days: 0 }), fastRetry);
    const r = fakeRound({ now: NOW, tokens: [tokens[0]!, { chain_id: 999_999, address: A, symbol: 'X' }], logs });
    const result = await provider.round(r.ctx);
    expect(result.tokens).toBe(1);
    const warn = logs.map((l) => JSON.parse(l) as { msg: string; tokens?: string[] }).find((l) => l.msg.includes('skipped'));
    expect(warn).toMatchObject({
      msg: 'http:defillama: 1 token(s) skipped: no DefiLlama chain name (set chain_names or tokens[].id)',
      tokens: [`999999:${A}`],
    });
  });
});

describe('http price provider: CoinGecko format', () => {
  const cgTokens = [
    { chain_id: 1, address: A.toUpperCase().replace('0X', '0x'), id: 'usd-coin' },
    { chain_id: 8453, address: B, id: 'weth' },
    { chain_id: 42161, address: C, id: 'tiny-coin' },
    { chain_id: 1, address: MISSING }, // no id: skipped
  ];

  it('backfills in windows of at most 90 days with exact decimal strings', async () => {
    const cs = coins();
    fixture = await startCoinPriceFixture({ now: NOW, coins: cs });
    const logs: string[] = [];
    const provider = createHttpPriceProvider(config(fixture.url, { format: 'coingecko', backfill_days: 200, tokens: cgTokens }), fastRetry);
    expect(provider.name).toBe('http:coingecko');
    const historyStart = hourFloor(NOW - 150 * DAY);
    const r = fakeRound({ now: NOW, historyStart, logs });
    const result = await provider.round(r.ctx);

    const want = sortRows([
      ...expectedRows(cs[0]!, 1, A, historyStart, NOW, 1800, 'http:coingecko'),
      ...expectedRows(cs[1]!, 8453, B, historyStart, NOW, 1800, 'http:coingecko'),
      ...expectedRows(cs[2]!, 42161, C, historyStart, NOW, 1800, 'http:coingecko'),
    ]);
    expect(sortRows(r.stored)).toEqual(want);
    expect(result).toEqual({ rows: want.length, tokens: 3, oldest: historyStart });
    // the 3-day gap of the tiny coin has no rows
    expect(r.stored.filter((x) => x.address === C && x.ts > hourFloor(NOW - 100 * DAY) + HOUR && x.ts < hourFloor(NOW - 97 * DAY) - HOUR)).toEqual([]);

    const ranges = fixture.requests.filter((q) => q.path.endsWith('/market_chart/range'));
    expect(ranges).toHaveLength(3 * 2);
    for (const q of ranges) {
      expect(Number(q.query.get('to')) - Number(q.query.get('from'))).toBeLessThanOrEqual(90 * DAY);
      expect(q.query.get('vs_currency')).toBe('usd');
    }
    expect(Number(ranges[0]!.query.get('from'))).toBe(historyStart - 1800);
    const current = fixture.requests.filter((q) => q.path === '/simple/price');
    expect(current.map((q) => q.query.get('ids'))).toEqual(['usd-coin,weth,tiny-coin']);
    expect(current[0]!.query.get('include_last_updated_at')).toBe('true');
    const warn = logs.map((l) => JSON.parse(l) as { msg: string; tokens?: string[] }).find((l) => l.msg.includes('skipped'));
    expect(warn).toMatchObject({ msg: 'http:coingecko: 1 token(s) skipped: no CoinGecko id (set tokens[].id)', tokens: [`1:${MISSING}`] });
    expect(logs.some((l) => l.includes('price(s) rejected'))).toBe(true);
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it('error: an unknown coin id answers 404 and fails that token only', async () => {
    const cs = coins();
    fixture = await startCoinPriceFixture({ now: NOW, coins: cs });
    const provider = createHttpPriceProvider(
      config(fixture.url, {
        format: 'coingecko',
        backfill_days: 1,
        tokens: [
          { chain_id: 1, address: A, id: 'usd-coin' },
          { chain_id: 1, address: MISSING, id: 'no-such-coin' },
        ],
      }),
      fastRetry,
    );
    const r = fakeRound({ now: NOW });
    const e = await roundError(provider, r.ctx);
    const from = hourFloor(NOW - DAY);
    expect(e.message).toBe(
      `http:coingecko: 1 of 2 token(s) not priced: GET ${fixture.url}/coins/no-such-coin/market_chart/range?vs_currency=usd&from=${from - 1800}&to=${hourFloor(NOW) - HOUR + 1800} answered HTTP 404 — check the URL (and any coin id or key in it)`,
    );
    expect(sortRows(r.stored)).toEqual(expectedRows(cs[0]!, 1, A, from, NOW, 1800, 'http:coingecko'));
    // the failed token's newest hour is not asked for (it would sit above a hole)
    expect(fixture.requests.filter((q) => q.path === '/simple/price').map((q) => q.query.get('ids'))).toEqual(['usd-coin']);
  });

  it('error: garbage JSON from the current endpoint is reported', async () => {
    fixture = await startCoinPriceFixture({ now: NOW, coins: coins(), garbage: ['garbage-coin'] });
    const provider = createHttpPriceProvider(
      config(fixture.url, { format: 'coingecko', backfill_days: 0, tokens: [{ chain_id: 1, address: GARBAGE, id: 'garbage-coin' }] }),
      fastRetry,
    );
    const e = await roundError(provider, fakeRound({ now: NOW }).ctx);
    expect(e.message).toMatch(
      new RegExp(
        `^http:coingecko: 1 of 1 token\\(s\\) not priced: GET ${fixture.url}/simple/price\\?ids=garbage-coin&vs_currencies=usd&include_last_updated_at=true returned a body that is not JSON \\(.+\\) — check that the URL points at a JSON API$`,
      ),
    );
  });
});

describe('coin price fixture', () => {
  it('caps the chart span like the real API', async () => {
    fixture = await startCoinPriceFixture({ now: NOW, coins: coins() });
    const res = await fetch(`${fixture.url}/chart/ethereum:${A}?start=${NOW - 600 * HOUR}&span=${CHART_MAX_SPAN + 1}&period=1h`);
    expect(res.status).toBe(400);
  });
});

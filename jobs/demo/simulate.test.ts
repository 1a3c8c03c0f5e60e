import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createArraySink } from '../../store/rawSink.js';
import { EVENT_KINDS, type EventRow, type Registry, type SnapshotRow, type VaultRow } from '../../model/rows.js';
import { DEMO_TOKENS, PRICE_GAP } from './catalog.js';
import { demoAnomalies, MISSED_SNAPSHOT_HOURS, UNIT_PRICE_JUMP_PCT } from './demoAnomalies.js';
import { DEMO_DEFAULTS, demoStart, type DemoParams } from './params.js';
import { buildDemoRegistry } from './registry.js';
import { simulateDemo, type SimulateOptions, type SimulationSummary } from './simulate.js';

const NOW = Date.UTC(2026, 0, 15, 10) / 1000;
const HOUR = 3600;
const DAY = 86_400;
const params = (over: Partial<DemoParams> = {}): DemoParams => ({ ...DEMO_DEFAULTS, now: NOW, ...over });
type Rows = ReturnType<typeof createArraySink>['rows'];

function run(p: DemoParams, opts: SimulateOptions = {}, registry: Registry = buildDemoRegistry(p)) {
  const { sink, rows } = createArraySink();
  const summary = simulateDemo(p, registry, sink, opts);
  return { rows, summary, registry };
}

function digest(rows: readonly unknown[]): string {
  const h = createHash('sha256');
  for (const r of rows) h.update(JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) + '\n');
  return h.digest('hex');
}

/** Every time-stamped table: snapshots, events, prices, allocation snapshots (daily at 00:00) and TVL readings. */
function digestTimeRows(rows: Rows): string[] {
  return [digest(rows.snapshots), digest(rows.events), digest(rows.prices), digest(rows.allocations), digest(rows.tvlSourceValues), digest(rows.requestTerms)];
}

/** The request terms of the requests opened among `events` (terms carry no time of their own). */
function termsOf(rows: Rows, events: Rows['events']): Rows['requestTerms'] {
  const opened = new Set(events.filter((e) => e.kind.endsWith('_pending')).map((e) => `${e.vault_id}|${e.request_hash}`));
  return rows.requestTerms.filter((t) => opened.has(`${t.vault_id}|${t.request_hash}`));
}

function concat(a: Rows, b: Rows): Rows {
  return {
    snapshots: [...a.snapshots, ...b.snapshots],
    events: [...a.events, ...b.events],
    prices: [...a.prices, ...b.prices],
    allocations: [...a.allocations, ...b.allocations],
    tvlSourceValues: [...a.tvlSourceValues, ...b.tvlSourceValues],
    requestTerms: [...a.requestTerms, ...b.requestTerms],
  };
}

/** Rows of each table in a canonical order (a run emits vault by vault, a split run hour-range by range). */
function canonical(rows: Rows): Rows {
  const by = <T>(xs: T[], key: (x: T) => string) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const pad = (n: number) => String(n).padStart(12, '0');
  return {
    snapshots: by(rows.snapshots, (s) => `${s.vault_id}|${pad(s.ts)}`),
    events: by(rows.events, (e) => `${pad(e.chain_id)}|${pad(e.block_number)}|${pad(e.log_index)}|${e.sub_index}`),
    prices: by(rows.prices, (p) => `${pad(p.chain_id)}|${p.address}|${pad(p.ts)}`),
    allocations: by(rows.allocations, (a) => `${a.vault_id}|${pad(a.as_of)}|${pad(a.position)}`),
    tvlSourceValues: by(rows.tvlSourceValues, (t) => `${t.source_id}|${pad(t.ts)}`),
    requestTerms: by(rows.requestTerms, (t) => `${t.vault_id}|${t.request_hash}`),
  };
}

const eventKey = (e: EventRow) => `${e.chain_id}|${e.block_number}|${e.log_index}|${e.sub_index}`;
const byChainOrder = (a: EventRow, b: EventRow) => a.block_number - b.block_number || a.log_index - b.log_index || a.sub_index - b.sub_index;

interface Position {
  S: bigint;
  Pd: bigint;
  Pr: bigint;
}
interface Request {
  kind: 'deposit' | 'withdraw';
  vault: string;
  wallet: string;
  assets: bigint;
  shares: bigint;
  ts: number;
  outcome: 'pending' | 'settled' | 'refunded';
}

/** Plain assertions for the hot loops: vitest's expect costs microseconds a call. */
function check(ok: boolean, what: string, got?: unknown, want?: unknown): void {
  if (!ok) throw new Error(`${what}: got ${String(got)}, want ${String(want)}`);
}
const same = (what: string, got: unknown, want: unknown) => check(got === want, what, got, want);

/**
 * The consistency oracle: replays every vault's rows with a naive loop and checks supply,
 * assets, prices of share movements, request lifecycles and wallet balances against them.
 */
function checkWorld(registry: Registry, p: DemoParams, rows: Rows, end: number) {
  const positions = new Map<string, Position>();
  const requests = new Map<string, Request>();
  const eventsByVault = new Map<string, EventRow[]>();
  const snapsByVault = new Map<string, SnapshotRow[]>();
  for (const e of rows.events) (eventsByVault.get(e.vault_id) ?? eventsByVault.set(e.vault_id, []).get(e.vault_id)!).push(e);
  for (const s of rows.snapshots) (snapsByVault.get(s.vault_id) ?? snapsByVault.set(s.vault_id, []).get(s.vault_id)!).push(s);
  const asyncKinds = new Set(['deposit_pending', 'deposit_refunded', 'withdraw_pending', 'withdraw_refunded']);
  const anomalies = demoAnomalies(
    [...registry.vaults].sort((a, b) => (a.vault_id < b.vault_id ? -1 : 1)),
    demoStart(p),
    p.days,
  );
  let consumed = 0;

  for (const vault of registry.vaults) {
    const id = vault.vault_id;
    const scale = 10n ** BigInt(36 - vault.numeraire_decimals);
    const aera = vault.vault_type === 'aera_v3';
    const events = (eventsByVault.get(id) ?? []).sort(byChainOrder);
    const snaps = (snapsByVault.get(id) ?? []).sort((a, b) => a.ts - b.ts);
    check(snaps.length > 0, `${id} has snapshots`);
    same(`${id} first snapshot`, snaps[0]!.ts, Math.max(demoStart(p), vault.listed_at));
    same(`${id} last snapshot`, snaps.at(-1)!.ts, end);
    let supply = 0n;
    let i = 0;
    let prev: SnapshotRow | null = null;
    for (const snap of snaps) {
      const at = `${id}@${snap.ts}`;
      if (prev) {
        // hourly, but for the one missed stretch (demoAnomalies.ts)
        const missed = id === anomalies.missedVault && snap.ts === anomalies.missedTo + HOUR;
        same(`${at} hourly`, snap.ts - prev.ts, missed ? (MISSED_SNAPSHOT_HOURS + 1) * HOUR : HOUR);
        check(snap.block_number > prev.block_number, `${at} block rises`, snap.block_number, prev.block_number);
      }
      // the unit price a share movement inside this hour is valued at: the as-of snapshot's
      const up = prev === null ? null : aera ? prev.unit_price! : (prev.total_assets * scale) / prev.total_supply;
      for (; i < events.length && events[i]!.ts <= snap.ts; i++) {
        const e = events[i]!;
        const where = `${at} ${eventKey(e)} ${e.kind}`;
        consumed++;
        check(prev === null ? e.ts === snap.ts : e.ts > prev.ts, `${where} inside its hour`, e.ts);
        same(`${where} token`, e.token, vault.numeraire_address);
        same(`${where} chain`, e.chain_id, vault.chain_id);
        same(`${where} counterparty`, e.counterparty === null, e.kind !== 'transfer_in' && e.kind !== 'transfer_out');
        if (!aera) check(!asyncKinds.has(e.kind) && e.request_hash === null, `${where} sync family`);
        const key = `${id}|${e.wallet}`;
        const pos = positions.get(key) ?? positions.set(key, { S: 0n, Pd: 0n, Pr: 0n }).get(key)!;
        const req = e.request_hash === null ? undefined : requests.get(e.request_hash);
        const terminal = (kind: string, match: boolean): Request => {
          check(req !== undefined && req.kind === kind && req.outcome === 'pending', `${where} matches an open ${kind} request`);
          check(match && req!.wallet === e.wallet && req!.vault === id, `${where} same wallet, vault, amount as its request`);
          check(e.ts > req!.ts, `${where} after its request`);
          return req!;
        };
        switch (e.kind) {
          case 'deposit':
            supply += e.shares;
            pos.S += e.shares;
            if (e.request_hash !== null) {
              terminal('deposit', req?.assets === e.assets).outcome = 'settled';
              pos.Pd -= e.assets;
            }
            // Aera mints at its published unit price; ERC-4626 at the exact one (≤ 1e-9 apart)
            if (up !== null && aera) same(`${where} shares`, e.shares, (e.assets * scale) / up);
            if (up !== null && !aera) check(e.shares - (e.assets * scale) / up <= e.shares / 10n ** 9n, `${where} shares`);
            break;
          case 'withdraw':
            supply -= e.shares;
            if (e.request_hash !== null) {
              terminal('withdraw', req?.shares === e.shares).outcome = 'settled';
              pos.Pr -= e.shares;
              same(`${where} assets`, e.assets, (e.shares * up!) / scale);
            } else {
              pos.S -= e.shares;
            }
            break;
          case 'deposit_pending':
          case 'withdraw_pending':
            check(/^0x[0-9a-f]{64}$/.test(e.request_hash ?? '') && !requests.has(e.request_hash!), `${where} fresh request hash`);
            requests.set(e.request_hash!, {
              kind: e.kind === 'deposit_pending' ? 'deposit' : 'withdraw',
              vault: id,
              wallet: e.wallet,
              assets: e.assets,
              shares: e.shares,
              ts: e.ts,
              outcome: 'pending',
            });
            if (e.kind === 'deposit_pending') {
              same(`${where} shares`, e.shares, 0n);
              pos.Pd += e.assets;
            } else {
              same(`${where} assets`, e.assets, 0n);
              pos.S -= e.shares;
              pos.Pr += e.shares;
            }
            break;
          case 'deposit_refunded':
            terminal('deposit', req?.assets === e.assets).outcome = 'refunded';
            pos.Pd -= e.assets;
            break;
          case 'withdraw_refunded':
            terminal('withdraw', req?.shares === e.shares).outcome = 'refunded';
            pos.Pr -= e.shares;
            pos.S += e.shares;
            break;
          case 'transfer_out': {
            pos.S -= e.shares;
            const pair = events[i + 1]!;
            same(`${where} sub_index`, e.sub_index, 0);
            check(
              pair.kind === 'transfer_in' && pair.sub_index === 1 && pair.log_index === e.log_index && pair.block_number === e.block_number,
              `${where} followed by its transfer_in`,
            );
            check(pair.tx_hash === e.tx_hash && pair.wallet === e.counterparty && pair.counterparty === e.wallet, `${where} pair parties`);
            check(pair.shares === e.shares && pair.assets === e.assets, `${where} pair amounts`);
            same(`${where} market value`, e.assets, (e.shares * up!) / scale);
            break;
          }
          case 'transfer_in':
            pos.S += e.shares;
            break;
        }
        check(pos.S >= 0n && pos.Pd >= 0n && pos.Pr >= 0n, `${where} ${key} never negative`, `${pos.S}/${pos.Pd}/${pos.Pr}`);
      }
      same(`${at} total_supply`, snap.total_supply, supply);
      if (aera) {
        check(snap.unit_price !== null, `${at} unit_price published`);
        same(`${at} total_assets`, snap.total_assets, (supply * snap.unit_price!) / scale);
      } else {
        same(`${at} unit_price`, snap.unit_price, null);
        check(snap.total_assets > 0n, `${at} total_assets > 0`);
      }
      prev = snap;
    }
    same(`${id}: events after the last snapshot`, i, events.length);
  }
  same('every event belongs to a registry vault', consumed, rows.events.length);
  return { positions, requests };
}

function checkKeysAndBlocks(rows: Rows): void {
  const keys = new Set(rows.events.map(eventKey));
  same('unique event keys', keys.size, rows.events.length);
  const snapKeys = new Set(rows.snapshots.map((s) => `${s.vault_id}|${s.ts}`));
  same('unique snapshot keys', snapKeys.size, rows.snapshots.length);
  // one timestamp and one hash per (chain, block), and time never runs backwards along a chain
  const blocks = new Map<string, string>();
  const hex = (n: number) => new RegExp(`^0x[0-9a-f]{${n}}$`);
  const [addr, h32] = [hex(40), hex(64)];
  for (const e of rows.events) {
    const k = `${e.chain_id}|${e.block_number}`;
    const v = `${e.ts}|${e.block_hash}`;
    const seen = blocks.get(k);
    if (seen === undefined) blocks.set(k, v);
    else same(`${k} one time and hash`, v, seen);
    check(addr.test(e.wallet) && h32.test(e.tx_hash) && h32.test(e.block_hash), `${eventKey(e)} identifiers`);
  }
  const sorted = [...rows.events].sort((a, b) => a.chain_id - b.chain_id || byChainOrder(a, b));
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (a.chain_id === b.chain_id) check(b.ts >= a.ts, `${eventKey(b)} time follows blocks`);
  }
}

describe('simulateDemo: determinism and prefix stability', () => {
  const small = params({ days: 30, wallets: 300 });

  it('emits identical rows for identical params', () => {
    const a = run(small);
    const b = run(small);
    expect(digestTimeRows(a.rows)).toEqual(digestTimeRows(b.rows));
    expect(digest(a.rows.allocations)).toBe(digest(b.rows.allocations));
    expect(a.summary).toEqual(b.summary);
  });

  it('emits different rows for another seed', () => {
    const a = run(small);
    const b = run({ ...small, seed: 43 });
    const [sa, ea, pa] = digestTimeRows(a.rows);
    const [sb, eb, pb] = digestTimeRows(b.rows);
    expect(sb).not.toBe(sa);
    expect(eb).not.toBe(ea);
    expect(pb).not.toBe(pa);
  });

  it('does not depend on the order of the registry', () => {
    const p = params({ days: 10, wallets: 100 });
    const registry = buildDemoRegistry(p);
    const reversed = { ...registry, vaults: [...registry.vaults].reverse(), tokens: [...registry.tokens].reverse() };
    expect(digestTimeRows(canonical(run(p, {}, reversed).rows))).toEqual(digestTimeRows(canonical(run(p, {}, registry).rows)));
  });

  it('extends by 48 hours with exactly the rows a longer run has', () => {
    const p = params({ days: 40, wallets: 200 });
    const registry = buildDemoRegistry(p);
    const first = run(p, {}, registry);
    const next = run(p, { fromTs: NOW, until: NOW + 48 * HOUR }, registry);
    const whole = run(p, { until: NOW + 48 * HOUR }, registry);
    expect(next.rows.snapshots.every((s) => s.ts > NOW)).toBe(true);
    expect(next.rows.events.every((e) => e.ts > NOW)).toBe(true);
    expect(next.summary.hours).toBe(48);
    expect(next.summary.end).toBe(NOW + 48 * HOUR);
    expect(digestTimeRows(canonical(concat(first.rows, next.rows)))).toEqual(digestTimeRows(canonical(whole.rows)));
    // the allocation snapshots of the two days it covers
    const midnights = [1, 2].map((d) => Math.floor(NOW / DAY) * DAY + d * DAY).filter((t) => t <= NOW + 48 * HOUR);
    expect(midnights.length).toBeGreaterThan(0);
    expect(new Set(next.rows.allocations.map((a) => a.as_of))).toEqual(new Set(midnights));
  });

  it('a world built to an instant inside an hour holds exactly the rows at or before it of a longer run', () => {
    const p = params({ days: 10, wallets: 120 });
    const registry = buildDemoRegistry(p);
    const whole = canonical(run(p, { until: NOW + 10 * HOUR }, registry).rows);
    for (const mid of [NOW + 3 * HOUR + 1800, NOW + 7 * HOUR + 1]) {
      const cut = canonical(run(p, { until: mid }, registry).rows);
      const upTo = <T extends { ts?: number; as_of?: number }>(xs: T[]) => xs.filter((x) => (x.ts ?? x.as_of)! <= mid);
      expect(cut.events.length).toBeGreaterThan(0);
      expect(cut.events.every((e) => e.ts <= mid)).toBe(true);
      expect(digestTimeRows(cut)).toEqual(
        digestTimeRows({
          snapshots: upTo(whole.snapshots),
          events: upTo(whole.events),
          prices: upTo(whole.prices),
          allocations: upTo(whole.allocations),
          tvlSourceValues: upTo(whole.tvlSourceValues),
          requestTerms: termsOf(whole, upTo(whole.events)),
        }),
      );
    }
  });

  describe('on a tiny world, at random split points', () => {
    const p = params({ days: 4, wallets: 40, vaults: 6 });
    const registry = buildDemoRegistry(p);
    const END = NOW + 30 * HOUR;
    const whole = canonical(run(p, { until: END }, registry).rows);

    it('is prefix-stable at any split hour (property)', () => {
      const want = digestTimeRows(whole);
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 29 }), (k) => {
          const split = NOW + k * HOUR;
          const a = run(p, { until: split }, registry).rows;
          const b = run(p, { fromTs: split, until: END }, registry).rows;
          return JSON.stringify(digestTimeRows(canonical(concat(a, b)))) === JSON.stringify(want);
        }),
        { numRuns: 12 },
      );
    });

    it('emits exactly the rows after fromTs, on the hour or not (property)', () => {
      fc.assert(
        fc.property(fc.integer({ min: demoStart(p) - HOUR, max: END }), (fromTs) => {
          const got = canonical(run(p, { fromTs, until: END }, registry).rows);
          const want: Rows = {
            snapshots: whole.snapshots.filter((r) => r.ts > fromTs),
            events: whole.events.filter((r) => r.ts > fromTs),
            prices: whole.prices.filter((r) => r.ts > fromTs),
            allocations: [],
            tvlSourceValues: whole.tvlSourceValues.filter((r) => r.ts > fromTs),
            requestTerms: termsOf(
              whole,
              whole.events.filter((r) => r.ts > fromTs),
            ),
          };
          return JSON.stringify(digestTimeRows(got)) === JSON.stringify(digestTimeRows(want));
        }),
        { numRuns: 12 },
      );
    });
  });
});

describe('simulateDemo: options and summary', () => {
  const p = params({ days: 20, wallets: 150 });

  it('reports progress about every 1 % and ends at the total', () => {
    const calls: [number, number][] = [];
    run(p, { onProgress: (done, total) => calls.push([done, total]) });
    expect(calls.length).toBeGreaterThanOrEqual(90);
    expect(calls.length).toBeLessThanOrEqual(110);
    const total = calls[0]![1];
    expect(calls.at(-1)).toEqual([total, total]);
    for (let i = 1; i < calls.length; i++) expect(calls[i]![0]).toBeGreaterThanOrEqual(calls[i - 1]![0]);
  });

  it('summarizes what it emitted', () => {
    const { rows, summary } = run(p);
    const byKind = Object.fromEntries(EVENT_KINDS.map((k) => [k, rows.events.filter((e) => e.kind === k).length]));
    expect(summary).toEqual<SimulationSummary>({
      start: NOW - 20 * DAY,
      end: NOW,
      hours: 20 * 24 + 1,
      vaults: 25,
      snapshots: rows.snapshots.length,
      events: rows.events.length,
      eventsByKind: byKind as SimulationSummary['eventsByKind'],
      prices: rows.prices.length,
      allocations: rows.allocations.length,
      tvlSourceValues: rows.tvlSourceValues.length,
      wallets: new Set(rows.events.map((e) => e.wallet)).size,
    });
  });

  it('emits nothing but allocations-free rows after fromTs = end', () => {
    const { rows, summary } = run(p, { fromTs: NOW });
    expect([rows.snapshots.length, rows.events.length, rows.prices.length, rows.allocations.length]).toEqual([0, 0, 0, 0]);
    expect(summary.hours).toBe(0);
  });

  it('error: until before the first hour', () => {
    expect(() => run(p, { until: NOW - 30 * DAY })).toThrow(`demo: "until" must be Unix seconds, not before ${NOW - 20 * DAY}, got ${NOW - 30 * DAY}`);
  });
});

describe('simulateDemo: a scale world', () => {
  const p = params({ vaults: 80, wallets: 4000, days: 12 });
  let world: ReturnType<typeof run>;
  beforeAll(() => {
    world = run(p);
  });

  it('passes the consistency oracle and keeps keys unique across many vaults per chain', () => {
    checkWorld(world.registry, p, world.rows, NOW);
    checkKeysAndBlocks(world.rows);
    expect(new Set(world.rows.events.map((e) => e.vault_id)).size).toBe(80);
  });
});

describe('simulateDemo: the default world', () => {
  const p = params();
  let world: ReturnType<typeof run>;
  let replay: ReturnType<typeof checkWorld>;
  beforeAll(() => {
    world = run(p);
  });

  it('passes the consistency oracle', () => {
    replay = checkWorld(world.registry, p, world.rows, NOW);
  });

  it('has unique event and snapshot keys and consistent blocks', () => {
    checkKeysAndBlocks(world.rows);
  });

  it('has async requests that settle, stay pending and get refunded, for deposits and redeems', () => {
    const count = (kind: string, outcome: string) => [...replay.requests.values()].filter((r) => r.kind === kind && r.outcome === outcome).length;
    for (const kind of ['deposit', 'withdraw']) {
      for (const outcome of ['settled', 'pending', 'refunded']) expect(count(kind, outcome), `${kind} ${outcome}`).toBeGreaterThan(0);
    }
    // requests still open at `now` are recent: settlement takes hours to a few days
    for (const r of replay.requests.values()) if (r.outcome === 'pending') expect(NOW - r.ts).toBeLessThanOrEqual(5 * DAY);
    // Aera vaults also take some sync deposits (beyond each vault's seed deposit, log index 0)
    const aera = new Set(world.registry.vaults.filter((v) => v.vault_type === 'aera_v3').map((v) => v.vault_id));
    const syncAera = world.rows.events.filter((e) => aera.has(e.vault_id) && e.kind === 'deposit' && e.request_hash === null && e.log_index % 1000 !== 0);
    expect(syncAera.length).toBeGreaterThan(0);
  });

  it("misses a few snapshot hours of one published-price vault and jumps one other vault's unit price for one hour", () => {
    const sorted = [...world.registry.vaults].sort((a, b) => (a.vault_id < b.vault_id ? -1 : 1));
    const a = demoAnomalies(sorted, demoStart(p), p.days);
    expect(a.missedVault).not.toBeNull();
    expect(a.jumpVault).not.toBeNull();
    expect(a.missedTo % DAY).toBe(0);
    const times = world.rows.snapshots.filter((s) => s.vault_id === a.missedVault).map((s) => s.ts);
    const inGap = times.filter((t) => t >= a.missedFrom && t <= a.missedTo);
    expect(inGap).toEqual([]);
    expect(times).toContain(a.missedFrom - HOUR);
    expect(times).toContain(a.missedTo + HOUR);
    // events went on in the gap (priced at the last published unit price, checked by the oracle)
    expect(world.rows.events.some((e) => e.vault_id === a.missedVault && e.ts > a.missedFrom - HOUR && e.ts <= a.missedTo)).toBe(true);
    // no other vault misses an hour (checked by the oracle), and the jump: up at its hour, back down the next
    const v = world.registry.vaults.find((x) => x.vault_id === a.jumpVault)!;
    const snaps = new Map(world.rows.snapshots.filter((s) => s.vault_id === a.jumpVault).map((s) => [s.ts, s]));
    const up = (t: number) => Number(snaps.get(t)!.total_assets) / 10 ** v.numeraire_decimals / (Number(snaps.get(t)!.total_supply) / 1e18);
    const rise = up(a.jumpHour) / up(a.jumpHour - HOUR) - 1;
    const fall = up(a.jumpHour + HOUR) / up(a.jumpHour) - 1;
    expect(rise).toBeGreaterThan(Number(UNIT_PRICE_JUMP_PCT) / 100 - 0.005);
    expect(fall).toBeLessThan(-0.05);
    // no other hourly move of any vault comes near 5 %
    for (const x of world.registry.vaults) {
      const s = world.rows.snapshots.filter((r) => r.vault_id === x.vault_id);
      const f = (r: SnapshotRow) => Number(r.total_assets) / Number(r.total_supply);
      for (let i = 1; i < s.length; i++) {
        if (x.vault_id === a.jumpVault && (s[i]!.ts === a.jumpHour || s[i]!.ts === a.jumpHour + HOUR)) continue;
        check(Math.abs(f(s[i]!) / f(s[i - 1]!) - 1) < 0.04, `${x.vault_id}@${s[i]!.ts} no jump`);
      }
    }
  });

  it('is prefix-stable through the missed stretch and the jump', () => {
    const a = demoAnomalies(
      [...world.registry.vaults].sort((x, y) => (x.vault_id < y.vault_id ? -1 : 1)),
      demoStart(p),
      p.days,
    );
    for (const until of [a.missedTo - HOUR, a.jumpHour]) {
      const short = run(p, { until });
      const cut = (rows: Rows): Rows => ({
        snapshots: rows.snapshots.filter((r) => r.ts <= until),
        events: rows.events.filter((r) => r.ts <= until),
        prices: rows.prices.filter((r) => r.ts <= until),
        allocations: rows.allocations.filter((r) => r.as_of <= until),
        tvlSourceValues: rows.tvlSourceValues.filter((r) => r.ts <= until),
        requestTerms: termsOf(
          rows,
          rows.events.filter((r) => r.ts <= until),
        ),
      });
      expect(digestTimeRows(canonical(short.rows))).toEqual(digestTimeRows(canonical(cut(world.rows))));
    }
  });

  it('has transfers, fully exited wallets and 500+ active wallets', () => {
    expect(world.summary.eventsByKind.transfer_out).toBeGreaterThan(50);
    const exited = [...replay.positions.values()].filter((x) => x.S === 0n && x.Pd === 0n && x.Pr === 0n);
    expect(exited.length).toBeGreaterThan(20);
    expect(world.summary.wallets).toBeGreaterThan(500);
  });

  it('lists a young vault whose history starts 45 days ago', () => {
    const young = world.registry.vaults.find((v) => v.listed_at === NOW - 45 * DAY)!;
    const first = Math.min(...world.rows.snapshots.filter((s) => s.vault_id === young.vault_id).map((s) => s.ts));
    expect(first).toBe(NOW - 45 * DAY);
  });

  it('prices every numeraire hourly but the unpriced one, with one 3-day gap', () => {
    const start = demoStart(p);
    const unpriced = new Set(DEMO_TOKENS.filter((t) => t.price === 'none').flatMap((t) => Object.values(t.addresses)));
    const series = new Map<string, number[]>();
    for (const r of world.rows.prices) {
      check(r.source === 'demo' && /^\d+(\.\d{1,8})?$/.test(r.usd) && r.ts % HOUR === 0, 'price row', JSON.stringify(r));
      (series.get(`${r.chain_id}:${r.address}`) ?? series.set(`${r.chain_id}:${r.address}`, []).get(`${r.chain_id}:${r.address}`)!).push(r.ts);
    }
    const gapToken = DEMO_TOKENS.find((t) => t.symbol === PRICE_GAP.symbol)!.addresses[PRICE_GAP.chain_id];
    for (const t of world.registry.tokens) {
      const ts = series.get(`${t.chain_id}:${t.address}`);
      if (unpriced.has(t.address)) {
        expect(ts).toBeUndefined();
        continue;
      }
      expect(ts![0]).toBe(start);
      expect(ts!.at(-1)).toBe(NOW);
      let maxGap = 0;
      for (let i = 1; i < ts!.length; i++) maxGap = Math.max(maxGap, ts![i]! - ts![i - 1]!);
      if (t.chain_id === PRICE_GAP.chain_id && t.address === gapToken) expect(maxGap).toBe((PRICE_GAP.hours + 1) * HOUR);
      else expect(maxGap).toBe(HOUR);
    }
    expect(world.registry.vaults.some((v) => unpriced.has(v.numeraire_address))).toBe(true);
    const usdc = world.rows.prices.filter((r) => r.chain_id === 1 && r.address === '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48').map((r) => Number(r.usd));
    expect(Math.min(...usdc)).toBeGreaterThan(0.99);
    expect(Math.max(...usdc)).toBeLessThan(1.01);
  });

  it("allocates each vault's TVL every day at 00:00 in 2–5 items", () => {
    // the newest allocation snapshot: the last midnight at or before now
    const LAST = Math.floor(NOW / DAY) * DAY;
    const lastSnap = new Map<string, SnapshotRow>();
    for (const s of world.rows.snapshots) if (s.ts === LAST) lastSnap.set(s.vault_id, s);
    expect(world.rows.allocations.every((a) => a.as_of % DAY === 0)).toBe(true);
    const unpriced = new Set(DEMO_TOKENS.filter((t) => t.price === 'none').flatMap((t) => Object.values(t.addresses)));
    const flows = new Set<string>();
    for (const v of world.registry.vaults) {
      if (v.listed_at > LAST) continue;
      const items = world.rows.allocations.filter((a) => a.vault_id === v.vault_id && a.as_of === LAST);
      expect(items.length).toBeGreaterThanOrEqual(2);
      expect(items.length).toBeLessThanOrEqual(5);
      expect(items.map((a) => a.position)).toEqual(items.map((_, i) => i));
      expect(Math.abs(items.reduce((s, a) => s + a.allocation, 0) - 1)).toBeLessThan(1e-9);
      const tvl = Number(lastSnap.get(v.vault_id)!.total_assets) / 10 ** v.numeraire_decimals;
      expect(Math.abs(items.reduce((s, a) => s + a.amount, 0) - tvl) / tvl).toBeLessThan(1e-9);
      for (const a of items) {
        expect(a.as_of).toBe(LAST);
        expect(a.amount_usd === null).toBe(unpriced.has(v.numeraire_address));
        expect(a.target).toMatchObject({ chain_id: v.chain_id, kind: 'asset', strategy_type: expect.any(String), symbol: expect.any(String) });
        const flow = a.target.flow as { kind: string; target_vault_address: string } | undefined;
        if (flow) flows.add(flow.kind);
      }
    }
    expect([...flows].sort()).toEqual(['pending_deposit', 'pending_redemption']);
  });

  it('reads the external TVL sources daily; the failing one errs for the last 10 days', () => {
    const [healthy, failing] = world.registry.tvl_sources;
    const rows = world.rows.tvlSourceValues;
    for (const r of rows) expect(r.ts % DAY).toBe(0);
    const days = Math.floor((NOW - Math.ceil(demoStart(p) / DAY) * DAY) / DAY) + 1;
    const good = rows.filter((r) => r.source_id === healthy!.id);
    expect(good.length).toBe(days);
    expect(good.every((r) => r.error === null && /^\d+\.\d{2}$/.test(r.usd!))).toBe(true);
    const bad = rows.filter((r) => r.source_id === failing!.id);
    expect(bad.length).toBe(days);
    for (const r of bad) {
      const down = r.ts >= NOW - 10 * DAY;
      expect(r.usd === null).toBe(down);
      expect(r.error === null).toBe(!down);
    }
    expect(bad.filter((r) => r.usd === null).length).toBe(10);
  });

  it('is realistic: yields of a few percent and positive TVL everywhere', () => {
    for (const v of world.registry.vaults as VaultRow[]) {
      const s = world.rows.snapshots.filter((x) => x.vault_id === v.vault_id);
      const up = (x: SnapshotRow) => Number(x.total_assets) / 10 ** v.numeraire_decimals / (Number(x.total_supply) / 1e18);
      const years = (s.at(-1)!.ts - s[0]!.ts) / (365 * DAY);
      const apy = (up(s.at(-1)!) / up(s[0]!)) ** (1 / years) - 1;
      expect(apy, v.vault_id).toBeGreaterThan(-0.1);
      expect(apy, v.vault_id).toBeLessThan(0.25);
      expect(s.every((x) => x.total_assets > 0n)).toBe(true);
    }
  });
});

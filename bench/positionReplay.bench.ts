// Cost-basis replay throughput (DESIGN §8: ≥ 2 M events/s per worker): the bigint fixed-point
// replay against the same replay written naively over decimal.js, on one demo world's rows.
// Runnable alone (`node dist/bench/positionReplay.bench.js`) and through bench/run.ts (`run()`).
import { pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { Decimal } from 'decimal.js';
import { demoPositions, type DemoPosition } from '../test/helpers/positionFixtures.js';
import { positionMetrics } from '../engine/positions/positionMetrics.js';
import { replayPosition, scaleDigits, type PositionContext } from '../engine/positions/replayPosition.js';
import { asOfIndex, usdIndexAt } from '../engine/series/asOf.js';
import type { EventRow } from '../model/rows.js';
import { eventTableOf, identity, sliceOf, type RowSlice } from '../model/events.js';

export const TARGET_EVENTS_PER_SECOND = 2_000_000;

export interface PositionReplayBenchOptions {
  /** demo world size; default: the curated demo vaults, 20 000 wallets, 730 days (~37 k events, ~18 k positions) */
  wallets?: number;
  days?: number;
  /** tinybench time budget per task, ms */
  timeMs?: number;
}

export interface BenchResult {
  name: 'position_replay';
  events: number;
  positions: number;
  /** replayPosition over rows laid out as a pool worker receives them (structured clone, position by position) */
  events_per_second: number;
  baseline: { name: string; events_per_second: number };
  /** events_per_second / baseline */
  ratio: number;
  target_events_per_second: number;
  meets_target: boolean;
  /** the same replay over the rows where the loader left them (main thread, scattered in memory) */
  resident_events_per_second: number;
  /** replay plus emitting every position's metrics strings */
  with_metrics_events_per_second: number;
  /**
   * The replay and its baseline timed by this process's CPU time instead of the wall clock: what
   * a worker with a core to itself does, on a machine where other processes share the cores.
   */
  cpu: { events_per_second: number; baseline_events_per_second: number };
  /** figures are events / the median tinybench sample */
  statistic: 'median';
}

export async function runPositionReplayBench(opts: PositionReplayBenchOptions = {}): Promise<BenchResult> {
  // ---- setup, outside the timed part ----
  const now = Date.UTC(2026, 0, 15, 10) / 1000;
  const world = demoPositions({ seed: 42, now, vaults: null, wallets: opts.wallets ?? 20_000, days: opts.days ?? 730 });
  const resident = world.positions;
  const cloned: DemoPosition[] = structuredClone(resident);
  const ctxs = cloned.map((p) => world.contexts.get(p.vault_id)!);
  const nows = ctxs.map((c) => c.series.ts[c.series.length - 1]!);
  const events = cloned.reduce((s, p) => s + p.rows.length, 0);
  assertSameResults(cloned, ctxs);
  // the rows as the engine keeps them: columns of one table per position (setup, not timed) …
  const slices = cloned.map((p) => sliceOf(p.rows));
  // … and every position in one shared table, as the resident world holds them
  const shared = eventTableOf(resident.flatMap((p) => p.rows));
  const sharedIdx = identity(shared.length);
  const sharedSlices: RowSlice[] = [];
  for (let i = 0, at = 0; i < resident.length; at += resident[i]!.rows.length, i++)
    sharedSlices.push({ table: shared, idx: sharedIdx, from: at, to: at + resident[i]!.rows.length });

  let sink = 0n; // keeps results observable so no work is optimized away
  const bench = new Bench({ name: 'position replay', time: opts.timeMs ?? 2000, warmupTime: 300, iterations: 5, throws: true });
  bench
    .add('bigint fixed point (replayPosition)', () => {
      for (let i = 0; i < cloned.length; i++) sink ^= replayPosition(slices[i]!, ctxs[i]!).shares;
    })
    .add('decimal.js replay (baseline)', () => {
      for (let i = 0; i < cloned.length; i++) sink ^= replayDecimal(cloned[i]!.rows, ctxs[i]!).S.isZero() ? 0n : 1n;
    })
    .add('bigint, resident rows', () => {
      for (let i = 0; i < resident.length; i++) sink ^= replayPosition(sharedSlices[i]!, ctxs[i]!).shares;
    })
    .add('bigint + metrics strings', () => {
      for (let i = 0; i < cloned.length; i++) sink ^= positionMetrics(replayPosition(slices[i]!, ctxs[i]!), ctxs[i]!, nows[i]!).shares_owned === '0' ? 0n : 1n;
    });
  await bench.run();

  // the same two alternatives on a CPU-time clock (process.cpuUsage, microsecond resolution)
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const cpuBench = new Bench({
    name: 'position replay (cpu time)',
    time: opts.timeMs ?? 2000,
    warmupTime: 300,
    iterations: 5,
    throws: true,
    timestampProvider: { name: 'cpuTime', fn: cpuMs, fromMs: (v: number) => v, toMs: (v: number | bigint) => Number(v) },
  });
  cpuBench
    .add('bigint fixed point (replayPosition)', () => {
      for (let i = 0; i < cloned.length; i++) sink ^= replayPosition(slices[i]!, ctxs[i]!).shares;
    })
    .add('decimal.js replay (baseline)', () => {
      for (let i = 0; i < cloned.length; i++) sink ^= replayDecimal(cloned[i]!.rows, ctxs[i]!).S.isZero() ? 0n : 1n;
    });
  await cpuBench.run();
  void sink;

  const rate = (name: string, b: Bench = bench): number => {
    const t = b.tasks.find((x) => x.name === name)!;
    const r = t.result;
    if (r.state !== 'completed') throw new Error(`bench task "${name}" ended ${r.state}`);
    // the median sample: robust to other processes stealing the core now and then
    return Math.round(events / (r.latency.p50 / 1000));
  };
  const ours = rate('bigint fixed point (replayPosition)');
  const base = rate('decimal.js replay (baseline)');
  return {
    name: 'position_replay',
    events,
    positions: cloned.length,
    events_per_second: ours,
    baseline: { name: 'decimal.js replay', events_per_second: base },
    ratio: Math.round((ours / base) * 100) / 100,
    target_events_per_second: TARGET_EVENTS_PER_SECOND,
    meets_target: ours >= TARGET_EVENTS_PER_SECOND,
    resident_events_per_second: rate('bigint, resident rows'),
    with_metrics_events_per_second: rate('bigint + metrics strings'),
    cpu: {
      events_per_second: rate('bigint fixed point (replayPosition)', cpuBench),
      baseline_events_per_second: rate('decimal.js replay (baseline)', cpuBench),
    },
    statistic: 'median',
  };
}

/** The shared convention of bench/run.ts: `{name, results, table}`. */
export async function run(): Promise<{ name: string; results: Record<string, unknown>; table: Record<string, string | number | boolean | null>[] }> {
  const r = await runPositionReplayBench();
  return { name: r.name, results: { ...r }, table: tableOf(r) };
}

function tableOf(r: BenchResult): Record<string, string | number | boolean | null>[] {
  const m = (x: number) => `${(x / 1e6).toFixed(2)} M events/s`;
  const row = (figure: string, value: number, target: number | null) => ({
    figure,
    value: m(value),
    baseline: m(r.baseline.events_per_second),
    ratio: Math.round((value / r.baseline.events_per_second) * 100) / 100,
    target: target === null ? null : `≥ ${m(target)}`,
    met: target === null ? null : value >= target,
  });
  return [
    row('replay, worker layout (1 thread)', r.events_per_second, r.target_events_per_second),
    {
      figure: 'replay, worker layout, per CPU-second',
      value: m(r.cpu.events_per_second),
      baseline: m(r.cpu.baseline_events_per_second),
      ratio: Math.round((r.cpu.events_per_second / r.cpu.baseline_events_per_second) * 100) / 100,
      target: `≥ ${m(r.target_events_per_second)}`,
      met: r.cpu.events_per_second >= r.target_events_per_second,
    },
    row('replay, resident rows', r.resident_events_per_second, null),
    row('replay + metrics strings', r.with_metrics_events_per_second, null),
  ];
}

// ---- the baseline: DESIGN §4.4 written the obvious way, Decimal everywhere ----

const Dx = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN });
type Dec = InstanceType<typeof Dx>;
interface DecimalState {
  S: Dec;
  Pr: Dec;
  Pd: Dec;
  C: Dec;
  R: Dec;
  Cu: Dec;
  Ru: Dec;
  usdOk: boolean;
  twr: number;
  lastP: number;
}

function replayDecimal(rows: readonly EventRow[], ctx: PositionContext): DecimalState {
  const d = ctx.numeraire.decimals;
  const st: DecimalState = {
    S: new Dx(0),
    Pr: new Dx(0),
    Pd: new Dx(0),
    C: new Dx(0),
    R: new Dx(0),
    Cu: new Dx(0),
    Ru: new Dx(0),
    usdOk: true,
    twr: 1,
    lastP: 1,
  };
  const deps = new Map<string, { a: Dec; u: Dec | null }>();
  const reds = new Map<string, Dec>();
  const unitPrice = (t: number): Dec => {
    const i = asOfIndex(ctx.series.ts, ctx.series.length, t);
    return i < 0 ? new Dx(1) : new Dx(ctx.series.unit_price.get(i).toString()).div(1e18);
  };
  const mv = (s: Dec, t: number) => s.mul(unitPrice(t)).toDecimalPlaces(d, Decimal.ROUND_DOWN);
  const boundary = (t: number) => {
    const p = unitPrice(t).toNumber();
    if (st.S.add(st.Pr).gt(0)) st.twr *= p / st.lastP;
    st.lastP = p;
  };
  const dispose = (s: Dec, a: Dec, u: Dec | null, t: number, escrowed: boolean) => {
    boundary(t);
    const held = st.S.add(st.Pr);
    const all = s.eq(held); // without this, a full exit leaves 1e-59 of basis behind
    const b = all ? st.C : st.C.mul(s).div(held);
    st.C = st.C.sub(b);
    st.R = st.R.add(a.sub(b));
    if (u) {
      const bu = all ? st.Cu : st.Cu.mul(s).div(held);
      st.Cu = st.Cu.sub(bu);
      st.Ru = st.Ru.add(a.mul(u).sub(bu));
    }
    if (escrowed) st.Pr = st.Pr.sub(s);
    else st.S = st.S.sub(s);
  };
  const acquire = (s: Dec, a: Dec, u: Dec | null, t: number) => {
    boundary(t);
    st.S = st.S.add(s);
    st.C = st.C.add(a);
    if (u) st.Cu = st.Cu.add(a.mul(u));
  };
  for (const r of rows) {
    const j = usdIndexAt(ctx.prices, r.ts);
    const u = j < 0 ? null : new Dx(ctx.prices!.usd[j]!);
    if (!u) st.usdOk = false;
    const s = new Dx(r.shares.toString()).div(1e18);
    const a = new Dx(r.assets.toString()).div(10 ** d);
    const h = r.request_hash;
    switch (r.kind) {
      case 'deposit':
        if (h === null) acquire(s, a, u, r.ts);
        else {
          const q = deps.get(h)!;
          deps.delete(h);
          st.Pd = st.Pd.sub(q.a);
          acquire(s, q.a, q.u, r.ts);
        }
        break;
      case 'deposit_pending':
        deps.set(h!, { a, u });
        st.Pd = st.Pd.add(a);
        break;
      case 'deposit_refunded':
        st.Pd = st.Pd.sub(deps.get(h!)!.a);
        deps.delete(h!);
        break;
      case 'withdraw':
        if (h === null) dispose(s, a, u, r.ts, false);
        else {
          dispose(reds.get(h)!, a, u, r.ts, true);
          reds.delete(h);
        }
        break;
      case 'withdraw_pending':
        reds.set(h!, s);
        st.S = st.S.sub(s);
        st.Pr = st.Pr.add(s);
        break;
      case 'withdraw_refunded':
        st.Pr = st.Pr.sub(reds.get(h!)!);
        st.S = st.S.add(reds.get(h!)!);
        reds.delete(h!);
        break;
      case 'transfer_in':
        acquire(s, mv(s, r.ts), u, r.ts);
        break;
      case 'transfer_out':
        dispose(s, mv(s, r.ts), u, r.ts, false);
        break;
    }
  }
  return st;
}

/** Equal outputs asserted before timing: the baseline computes what the replay computes. */
function assertSameResults(positions: readonly DemoPosition[], ctxs: readonly PositionContext[]): void {
  positions.forEach((p, i) => {
    const ctx = ctxs[i]!;
    const d = ctx.numeraire.decimals;
    const st = replayPosition(p.rows, ctx);
    const base = replayDecimal(p.rows, ctx);
    const now = ctx.series.ts[ctx.series.length - 1]!;
    const m = positionMetrics(st, ctx, now);
    const k = asOfIndex(ctx.series.ts, ctx.series.length, now);
    const held = base.S.add(base.Pr).gt(0);
    const roi = (base.twr * (held ? ctx.series.unit_price_f[k]! / base.lastP : 1) - 1) * 100;
    // both keep full precision (60 digits vs 10^-(decimals+30) fixed point): equal to 1e-30
    const exact = (x: bigint) => new Dx(x.toString()).div(new Dx(10).pow(d + scaleDigits(st)));
    const close = (x: Dec, y: Dec) => x.sub(y).abs().lt(1e-30);
    const same =
      base.S.mul(1e18).toFixed() === st.shares.toString() &&
      close(base.C, exact(st.cost)) &&
      close(base.R, exact(st.realized)) &&
      (m.roi_pct.native === null || Math.abs(roi - m.roi_pct.native) <= 1e-7);
    if (!same || st.skipped !== 0) {
      const got = { S: st.shares.toString(), C: exact(st.cost).toFixed(), R: exact(st.realized).toFixed(), roi: m.roi_pct.native };
      const want = { S: base.S.mul(1e18).toFixed(), C: base.C.toFixed(), R: base.R.toFixed(), roi };
      throw new Error(`baseline and replay disagree on ${p.wallet} in ${p.vault_id}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
    }
  });
}

function printResult(r: BenchResult): void {
  console.log(`position replay: ${r.events} events in ${r.positions} positions, one thread; baseline: ${r.baseline.name}`);
  console.table(tableOf(r));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runPositionReplayBench()
    .then(printResult)
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}

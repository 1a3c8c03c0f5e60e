// Ingest throughput over HTTP JSON-RPC (DESIGN §6.1, §6.2, §8): a devnet of ≥ 50,000 watched
// logs (120 days × 100 wallets: ~56,000 logs on the indexed contracts, ~80,000 on the chain)
// served by Hardhat in a child process, ingested by vaultd's indexer (ingestOnce, one round to
// the head) into a fresh DuckDB file per run. Beside it in the same run: "fetch only" — the
// same eth_getLogs calls through a bare viem client — and Ponder indexing the same contracts
// (events + hourly reads) against the same node, when it installs and runs here.
// Reports logs/s, events/s, hourly snapshot reads/s, wall and CPU time, and where the time goes
// (the indexer's per-range `phases_ms`). Simulation is never inside a timed part.
// Run: `npm run bench -- ingest`, or alone after `npm run build`: `node dist/bench/ingest/ingestBench.js`.
// Env: VAULTD_INGEST_BENCH_DAYS (120), _WALLETS (100), _SEED (1), _RUNS (3), _SPAN (blocks per
// eth_getLogs, 0 = adaptive), _PONDER (0 to skip Ponder), _PONDER_TIMEOUT_S (900).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCommon } from '../../common/common.js';
import { parseConfig, type Config } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createStore } from '../../store/store.js';
import { createAddressBook } from '../../jobs/chain/addressBook.js';
import { ingestOnce, type ChainRoundResult } from '../../jobs/chain/ingestOnce.js';
import { devnetConfig, type DevnetManifest } from '../../devnet/index.js';
import type { BenchOutput } from '../run.js';
import { startBenchDevnet } from './devnetProcess.js';
import { fetchOnly, type FetchOnlyResult } from './fetchOnly.js';
import { processCpuMs } from './procCpu.js';
import { runPonder, type PonderOutcome } from './ponder.js';
import { createRangeRecorder, phaseTotals, type CommittedRange } from './rangeRecorder.js';

const envInt = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return v;
};

export const settings = {
  days: envInt('VAULTD_INGEST_BENCH_DAYS', 120),
  wallets: envInt('VAULTD_INGEST_BENCH_WALLETS', 100),
  seed: envInt('VAULTD_INGEST_BENCH_SEED', 1),
  runs: Math.max(1, envInt('VAULTD_INGEST_BENCH_RUNS', 3)),
  /**
   * eth_getLogs span pinned to this many blocks, or 0 for the indexer's adaptive default (2,000
   * growing to 50,000; here the first ranges are over viem's 10 MB body limit and shrink).
   */
  span: envInt('VAULTD_INGEST_BENCH_SPAN', 0),
  ponder: process.env.VAULTD_INGEST_BENCH_PONDER !== '0',
  ponderTimeoutMs: envInt('VAULTD_INGEST_BENCH_PONDER_TIMEOUT_S', 900) * 1000,
};

/** The issue asks for the measurement on a devnet of ≥ 50,000 logs (counted on the watched contracts). */
export const MIN_LOGS = 50_000;

const say = (line: string) => process.stderr.write(`[ingest bench] ${line}\n`);

interface VaultdRun {
  result: ChainRoundResult;
  ms: number;
  cpu_ms: number;
  node_cpu_ms: number;
  ranges: CommittedRange[];
  problems: string[];
}

function benchConfig(manifest: DevnetManifest): Config {
  const slice = devnetConfig(manifest);
  return { ...parseConfig(VAULT_TYPES, { chains: slice.chains, registry: slice.registry }, 'the ingest bench'), source: null, log_level: 'info' };
}

/** One vaultd ingest of the whole chain into a new DuckDB file; only ingestOnce is timed. */
async function vaultdRun(config: Config, manifest: DevnetManifest, nodePid: number, i: number): Promise<VaultdRun> {
  const dir = mkdtempSync(join(tmpdir(), 'vaultd-ingest-bench-'));
  const rec = createRangeRecorder(`vaultd run ${i + 1}/${settings.runs}`, say);
  const common = createCommon(config, { logger: rec.logger });
  const store = await createStore(common, { path: join(dir, 'ingest.duckdb') });
  try {
    const node0 = processCpuMs(nodePid);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const [result] = await ingestOnce(common, store, config, {
      // one round reaches the head: no budget cut; the adaptive span unless pinned (settings.span)
      options: { roundBudgetMs: 3_600_000, ...(settings.span > 0 ? { initialRange: settings.span, maxRange: settings.span } : {}) },
    });
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const nodeCpuMs = processCpuMs(nodePid) - node0;
    if (!result || result.status !== 'ok' || result.to !== manifest.endBlock) {
      throw new Error(`vaultd run ${i + 1} did not reach block ${manifest.endBlock}: ${JSON.stringify(result)}; ${rec.problems.slice(-3).join(' | ')}`);
    }
    return { result, ms, cpu_ms: (cpu.user + cpu.system) / 1000, node_cpu_ms: nodeCpuMs, ranges: rec.ranges, problems: rec.problems };
  } finally {
    await common.shutdown.close('ingest bench run done');
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type PonderFigures = (PonderOutcome | { status: 'skipped'; reason: string; indexing_ms?: undefined }) & { node_cpu_ms?: number };

/** Ponder did the same work: every watched log and one block event per hour; one snapshot per vault-hour. */
function checkPonder(p: PonderOutcome, vaultd: ChainRoundResult, m: DevnetManifest): PonderOutcome {
  if (p.status !== 'ok') return p;
  const blocks = m.endBlock - m.startBlock + 1;
  const disagree: string[] = [];
  if (p.events_indexed !== vaultd.logs + blocks) disagree.push(`${p.events_indexed} events indexed, expected ${vaultd.logs} logs + ${blocks} blocks`);
  if (p.counts?.snapshots !== vaultd.snapshots) disagree.push(`${p.counts?.snapshots} snapshots, vaultd ${vaultd.snapshots}`);
  return disagree.length === 0 ? p : { ...p, status: 'failed', reason: `ponder's output disagrees with vaultd's: ${disagree.join('; ')}` };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r1 = (x: number) => Math.round(x * 10) / 10;
const perS = (n: number, ms: number) => Math.round(n / (ms / 1000));

export async function runIngestBench(): Promise<BenchOutput> {
  const load0 = r1(loadavg()[0]!);
  say(`devnet: simulating ${settings.days} days × ${settings.wallets} wallets (seed ${settings.seed}) in a child process…`);
  let shown = -1;
  const devnet = await startBenchDevnet({ days: settings.days, wallets: settings.wallets, seed: settings.seed }, (hour, hours) => {
    const pct = Math.floor((hour / hours) * 10) * 10;
    if (pct > shown) say(`devnet: hour ${hour}/${hours} (${pct} %)`);
    shown = Math.max(shown, pct);
  });
  try {
    const m = devnet.manifest;
    say(
      `devnet: ${m.rpcUrl}, blocks 1..${m.endBlock}, ${m.stats.transactions} transactions, ${m.stats.logs} logs on the chain, simulated in ${(devnet.simulateMs / 1000).toFixed(1)} s`,
    );
    const config = benchConfig(m);
    const book = createAddressBook(config, m.chainId);
    const addresses = book.addressesOf(book.vaults);

    // ---- vaultd runs, each followed by the fetch-only baseline over the ranges vaultd used ----
    const runs: VaultdRun[] = [];
    const fetches: FetchOnlyResult[] = [];
    for (let i = 0; i < settings.runs; i++) {
      const run = await vaultdRun(config, m, devnet.pid, i);
      runs.push(run);
      say(
        `vaultd run ${i + 1}: ${run.result.logs} logs, ${run.result.events} events, ${run.result.snapshot_reads} snapshot reads in ${(run.ms / 1000).toFixed(2)} s (${perS(run.result.logs, run.ms)} logs/s)`,
      );
      const f = await fetchOnly(m.rpcUrl, addresses, runs[0]!.ranges);
      fetches.push(f);
      say(`fetch only ${i + 1}: ${f.calls} eth_getLogs, ${f.logs} logs in ${(f.ms / 1000).toFixed(2)} s (${perS(f.logs, f.ms)} logs/s)`);
    }
    const first = runs[0]!.result;
    const hours = (m.endTime - m.startTime) / 3600 + 1;
    for (const [i, r] of runs.entries()) {
      const x = r.result;
      if (x.logs !== first.logs || x.events !== first.events || x.snapshots !== first.snapshots)
        throw new Error(`vaultd run ${i + 1} disagrees with run 1: ${JSON.stringify(x)} vs ${JSON.stringify(first)}`);
    }
    if (first.snapshots !== hours * m.vaults.length)
      throw new Error(`vaultd stored ${first.snapshots} snapshots, expected ${hours} hours × ${m.vaults.length} vaults`);
    for (const f of fetches) if (f.logs !== first.logs) throw new Error(`fetch only read ${f.logs} logs where vaultd read ${first.logs}`);
    if (first.logs < MIN_LOGS) say(`WARNING: ${first.logs} watched logs, fewer than the ${MIN_LOGS} asked for: raise VAULTD_INGEST_BENCH_DAYS or _WALLETS`);

    // ---- Ponder on the same node ----
    let ponder: PonderFigures = { status: 'skipped', reason: 'VAULTD_INGEST_BENCH_PONDER=0' };
    if (settings.ponder) {
      say(`ponder: indexing the same contracts on ${m.rpcUrl} (timeout ${settings.ponderTimeoutMs / 1000} s)…`);
      const node0 = processCpuMs(devnet.pid);
      const outcome = await runPonder({ manifest: m, timeoutMs: settings.ponderTimeoutMs, say });
      ponder = { ...checkPonder(outcome, first, m), node_cpu_ms: Math.round(processCpuMs(devnet.pid) - node0) };
      say(
        `ponder: ${ponder.status}${ponder.indexing_ms !== undefined ? ` in ${(ponder.indexing_ms / 1000).toFixed(1)} s` : ''}${ponder.reason ? ` — ${ponder.reason}` : ''}`,
      );
    }

    // ---- figures ----
    const ms = median(runs.map((r) => r.ms));
    const fetchMs = median(fetches.map((f) => f.ms));
    const phases = runs.map((r) => phaseTotals(r.ranges));
    const phaseMedian = Object.fromEntries(Object.keys(phases[0]!).map((k) => [k, Math.round(median(phases.map((p) => p[k] ?? 0)))]));
    const vaultd = {
      wall_ms: { median: Math.round(ms), runs: runs.map((r) => Math.round(r.ms)) },
      cpu_ms_median: Math.round(median(runs.map((r) => r.cpu_ms))),
      node_cpu_ms_median: Math.round(median(runs.map((r) => r.node_cpu_ms))),
      logs_per_s: perS(first.logs, ms),
      events_per_s: perS(first.events, ms),
      snapshot_reads_per_s: perS(first.snapshot_reads, ms),
      ranges: first.ranges,
      // sums over the ranges, median over the runs; what is left of the wall time is the
      // registry sync, the chain-id check and the checkpoint reads between ranges
      phases_ms: phaseMedian,
      phases_ms_runs: phases,
    };
    const ponderOk = ponder.status === 'ok' && ponder.indexing_ms !== undefined ? ponder : null;
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    const results = {
      method: {
        devnet: `hardhat@2.29.1 (EDR) over HTTP JSON-RPC on 127.0.0.1, in a child process; ${settings.days} days × ${settings.wallets} wallets, seed ${settings.seed}; one block per hour`,
        vaultd: `ingestOnce (one round to the head, finality 0) into a fresh DuckDB file, ${settings.runs} runs; ${settings.span > 0 ? `eth_getLogs span fixed at ${settings.span} blocks` : 'adaptive eth_getLogs span (indexer defaults)'}; wall = ingestOnce only (store creation and migrations outside)`,
        fetch_only:
          'the same eth_getLogs calls (ranges and addresses of vaultd run 1), one after the other, viem publicClient.getLogs over http(), nothing else',
        ponder:
          'ponder start on the same node, PGlite, disableCache; time = its "Started backfill indexing" → "Completed indexing across all chains" log lines',
      },
      load_average_1m: { before: load0, after: r1(loadavg()[0]!) },
      chain: {
        blocks: m.endBlock,
        hours,
        vaults: m.vaults.length,
        watched_addresses: addresses.length,
        transactions: m.stats.transactions,
        logs_on_chain: m.stats.logs,
        logs_watched: first.logs,
        logs_watched_min: MIN_LOGS,
        logs_watched_met: first.logs >= MIN_LOGS,
        simulate_ms: devnet.simulateMs,
      },
      vaultd: {
        ...vaultd,
        logs: first.logs,
        events: first.events,
        snapshots: first.snapshots,
        snapshot_reads: first.snapshot_reads,
        // warn/error lines the indexer logged over all runs (bad data, retries): 0 on a clean run
        warnings: runs.reduce((n, r) => n + r.problems.length, 0),
      },
      fetch_only: {
        wall_ms: { median: Math.round(fetchMs), runs: fetches.map((f) => Math.round(f.ms)) },
        logs_per_s: perS(first.logs, fetchMs),
        calls: fetches[0]!.calls,
      },
      vaultd_over_fetch_only_time: ratio(ms, fetchMs),
      ponder: {
        ...ponder,
        ...(ponderOk
          ? {
              logs_per_s: perS(first.logs, ponderOk.indexing_ms!),
              snapshot_reads_per_s: perS(first.snapshots, ponderOk.indexing_ms!),
              rpc_requests_per_s: perS(
                Object.values(ponderOk.rpc_requests ?? {}).reduce((a, b) => a + b, 0),
                ponderOk.indexing_ms!,
              ),
            }
          : {}),
      },
      // vaultd's throughput ÷ Ponder's on the same chain (= Ponder's time ÷ vaultd's)
      vaultd_over_ponder: ponderOk ? ratio(ponderOk.indexing_ms!, ms) : null,
    };

    const row = (figure: string, value: number | string | null, baseline: string, ratioText: string, target: string, met: string) => ({
      figure,
      value,
      baseline,
      ratio: ratioText,
      target,
      met,
    });
    const s = (x: number) => `${(x / 1000).toFixed(2)} s`;
    const table = [
      row('devnet: logs on the watched contracts', first.logs, `${m.stats.logs} on the chain`, '', `≥ ${MIN_LOGS}`, first.logs >= MIN_LOGS ? 'yes' : 'NO'),
      row('vaultd: ingest wall time (median)', s(ms), `fetch only ${s(fetchMs)}`, `${results.vaultd_over_fetch_only_time}× fetch-only time`, '—', ''),
      row(
        'vaultd: logs/s',
        vaultd.logs_per_s,
        `fetch only ${results.fetch_only.logs_per_s}`,
        `${ratio(vaultd.logs_per_s, results.fetch_only.logs_per_s)}`,
        '—',
        '',
      ),
      row('vaultd: events (rows)/s', vaultd.events_per_s, '', '', '—', ''),
      row('vaultd: hourly snapshot reads/s', vaultd.snapshot_reads_per_s, '', '', '—', ''),
      row('vaultd: CPU ms (indexer process; node)', `${vaultd.cpu_ms_median}; ${vaultd.node_cpu_ms_median}`, '', '', '—', ''),
      row('vaultd: phases ms (sum over ranges)', JSON.stringify(phaseMedian), '', '', '—', ''),
      ponderOk
        ? row(
            'vaultd vs Ponder: time to the head',
            s(ms),
            `ponder ${ponderOk.version} ${s(ponderOk.indexing_ms!)}`,
            `${results.vaultd_over_ponder}× faster`,
            'comparison',
            '',
          )
        : row('vaultd vs Ponder: time to the head', s(ms), `ponder: ${ponder.status}`, '', 'comparison', ponder.reason ?? ''),
    ];
    if (ponderOk) {
      table.push(
        row(
          'Ponder: logs/s; snapshot reads/s',
          `${results.ponder.logs_per_s}; ${results.ponder.snapshot_reads_per_s}`,
          `wall incl. start-up ${s(ponderOk.wall_ms!)}`,
          '',
          '—',
          '',
        ),
      );
      table.push(
        row(
          'Ponder: CPU ms (ponder process, from its start; node)',
          `${ponderOk.cpu_ms}; ${ponder.node_cpu_ms}`,
          `RPC requests ${JSON.stringify(ponderOk.rpc_requests)}`,
          '',
          '—',
          '',
        ),
      );
    }
    say(`phases (ms, summed over ranges, median of runs): ${JSON.stringify(phaseMedian)}`);
    return { name: 'ingest', results, table };
  } finally {
    await devnet.stop();
  }
}

/** The shared convention of bench/run.ts. */
export const run = runIngestBench;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runIngestBench().then(
    (out) => console.table(out.table),
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}

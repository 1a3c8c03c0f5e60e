// HTTP bench (DESIGN §8): vaultd's full API path against a bare uWebSockets.js handler, nginx,
// Fastify and node:http serving the same ~1 KB bytes; plus vaultd's precompressed brotli page
// (~150 KB raw), a 304, an uncached 1,000-point timeseries window, cold start and RSS.
// Method: keep-alive, 64 connections, every server pinned to core 0 and `wrk -t1 -c64` to
// core 1. Per target: req/s at saturation (`-d10s`), and the server's CPU µs per request at a
// fixed offered load below saturation. All servers run side by side and the targets are
// measured in turns (fixed-rate runs in several rounds), so that load from other processes on
// the machine falls on the alternatives alike.
// Run: `npm run bench -- http` (builds, runs through bench/run.ts, merges the results into
// bench/results/latest.json), or alone after `npm run build`: `node dist/bench/http/httpBench.js`.
// Env: VAULTD_HTTP_BENCH_DIR (work dir, default /tmp/vaultd-http-bench), _SECONDS (saturation
// run, 10), _FIXED_SECONDS (one fixed-rate round, 3), _ROUNDS (3), _RATE (cap, 25000), _ONLY (rows to
// run, comma-separated case ids without the server, e.g. `page_1kb,timeseries_1000h_random`: their
// baselines' rows come along; `cold_start` and `readers` name those measurements; default all),
// _BASELINES (servers to compare with, e.g. `uws`; default all found).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { BenchOutput } from '../run.js';
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createStore } from '../../store/store.js';
import { median } from '../stats.js';
import type { BaselineSpec } from './baselineServer.js';
import { loadAverage, rssMiB } from './procStat.js';
import { compare, type CaseResult } from './report.js';
import { freePort, get, SERVER_HEADERS, spawnPinned, startNginx, startProcess, stopChild, waitFor200, type Fetched, type Running } from './servers.js';
import { ensureTools } from './tools.js';
import { measureReaders, type ReadersResult } from './readers.js';
import { capture, combineRounds, paceScript, runWrk, type WrkRun } from './wrk.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench/http
const repoRoot = resolve(here, '..', '..', '..');
const vaultdBin = join(repoRoot, 'bin', 'vaultd.js');
const envNumber = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};

export const settings = {
  dir: process.env.VAULTD_HTTP_BENCH_DIR ?? join(tmpdir(), 'vaultd-http-bench'),
  /** saturation run (s) */
  seconds: envNumber('VAULTD_HTTP_BENCH_SECONDS', 10),
  /** saturation rounds, targets interleaved; each target's median round is reported (this VM moves ±20 % between runs) */
  saturationRounds: envNumber('VAULTD_HTTP_BENCH_SAT_ROUNDS', 3),
  /** one fixed-rate round (s) */
  fixedSeconds: envNumber('VAULTD_HTTP_BENCH_FIXED_SECONDS', 3),
  rounds: envNumber('VAULTD_HTTP_BENCH_ROUNDS', 3),
  warmupSeconds: 2,
  /** fixed offered load: this, or half the slowest saturation rate of the group if lower */
  rate: envNumber('VAULTD_HTTP_BENCH_RATE', 25_000),
  connections: 64,
  coldStarts: 3,
  serverCore: 0,
  clientCore: 1,
  /** the demo world of DESIGN §7 (cold start, 1 KB page, 304, timeseries) */
  demo: ['--seed', '7', '--now', '2026-06-01T00:00:00Z'],
  /** a wider world whose /v1/vaults?include_hidden=true page is ~150 KB */
  wide: ['--seed', '7', '--now', '2026-06-01T00:00:00Z', '--vaults', '170', '--days', '30', '--wallets', '200'],
  timeseriesStart: '2026-03-01T00:00:00Z',
  /** random windows: a start drawn from this many hours (before and after timeseriesStart) per request */
  randomWindowHours: 2000,
  /** as_of rows (DESIGN §11.6): random past hours from this many days before the world's end up to its last hour */
  asOfDays: 180,
  /** as_of rows: this many of the most active wallets (positions) */
  asOfWallets: 64,
  /** what a browser sends: the window answer is gzip (windows have no brotli variant) */
  browserAcceptEncoding: 'gzip, deflate, br, zstd',
  /** rows to run (VAULTD_HTTP_BENCH_ONLY: parts of row names, e.g. `vault_detail_,positions_` for the six time-travel rows); empty: all */
  only: listEnv('VAULTD_HTTP_BENCH_ONLY'),
  /** baseline servers to start (VAULTD_HTTP_BENCH_BASELINES); empty: all found */
  baselines: listEnv('VAULTD_HTTP_BENCH_BASELINES'),
};

function listEnv(name: string): string[] {
  return (process.env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The baseline row a vaultd row is compared with (report.ts): the 304 beside the 1 KB 200, every window beside one window's bytes. */
const baselineRow = (row: string) => (row === 'not_modified_304' ? 'page_1kb' : row.startsWith('timeseries_') ? 'timeseries_1000h' : row);

/** Whether a case (`server.row`) runs under VAULTD_HTTP_BENCH_ONLY: its row's name contains a named part, or it is the baseline of a named row. */
export function selected(id: string, only: readonly string[] = settings.only): boolean {
  if (only.length === 0) return true;
  const dot = id.indexOf('.');
  const server = id.slice(0, dot);
  const row = id.slice(dot + 1);
  return only.some((named) => row.includes(named)) || (server !== 'vaultd' && only.some((named) => baselineRow(named) === row));
}

/** Whether a measurement beside the rows (cold_start, readers) runs. */
const extraSelected = (name: string) => settings.only.length === 0 || settings.only.includes(name);

interface Case {
  /** key in results.runs, e.g. "vaultd.page_1kb" */
  id: string;
  server: Running;
  path: string;
  headers: Record<string, string>;
  /** targets of a group share one fixed offered rate; null: CPU over the saturation run only */
  group: '1kb' | 'br' | null;
  /** wrk Lua script choosing the request (random windows) */
  script?: string;
}

/** The bench; its work folder (two demo databases, ~0.5 GB) is removed after unless VAULTD_HTTP_BENCH_DIR names one to keep. */
export async function run(): Promise<BenchOutput> {
  try {
    return await measure();
  } finally {
    if (process.env.VAULTD_HTTP_BENCH_DIR === undefined) rmSync(settings.dir, { recursive: true, force: true });
  }
}

async function measure(): Promise<BenchOutput> {
  const tools = await ensureTools();
  const notes = [...tools.notes];
  const results: Record<string, unknown> = {
    method: {
      connections: settings.connections,
      saturation: `wrk -t1 -c${settings.connections} -d${settings.seconds}s --latency (keep-alive)${tools.taskset ? `, wrk on core ${settings.clientCore}, server on core ${settings.serverCore}` : ', not pinned'}`,
      fixed_rate: `${settings.rounds} rounds × ${settings.fixedSeconds} s per target at one offered rate per group (min(${settings.rate}, half the group's slowest saturation rate)), paced by a Lua script in wrk (absolute send slots from the monotonic clock; Debian wrk 4.1 has no -R)`,
      cpu: "server CPU time (sum of its threads' /proc schedstat) over a run ÷ requests wrk completed in it",
      order: 'all servers up at once, targets measured in turns',
    },
    load_average_start: loadAverage(),
  };
  if (!tools.wrk) return { name: 'http', results: { ...results, skipped: notes }, table: [{ figure: 'http bench', value: 'skipped', note: notes.join('; ') }] };

  rmSync(settings.dir, { recursive: true, force: true });
  mkdirSync(settings.dir, { recursive: true });
  const dir = settings.dir;
  const core = (c: number) => (tools.taskset ? c : null);
  const demoDb = join(dir, 'demo.duckdb');
  const wideDb = join(dir, 'wide.duckdb');
  const configPath = join(dir, 'vaultd.json');
  writeFileSync(configPath, JSON.stringify({ rate_limits: { anonymous_per_minute: 1_000_000_000, keyed_per_minute: 1_000_000_000 } }));

  console.log('http bench: building the demo worlds');
  await capture(process.execPath, [vaultdBin, 'demo', '--db', demoDb, ...settings.demo, '--force'], 300_000);
  await capture(process.execPath, [vaultdBin, 'demo', '--db', wideDb, ...settings.wide, '--force'], 300_000);

  // cold start recomputes (no saved snapshot); a restart on the same inputs serves the snapshot
  // files the previous start wrote (issue #9)
  const starts = extraSelected('cold_start');
  const coldStart = starts ? await measureColdStart(demoDb, configPath, { fresh: true }) : { samples: [], median: Number.NaN };
  const restart = starts ? await measureColdStart(demoDb, configPath, { fresh: false }) : { samples: [], median: Number.NaN };
  if (starts) {
    results.cold_start_ms = coldStart;
    console.log(`http bench: cold start (recompute) ${coldStart.samples.join(', ')} ms`);
    results.restart_ms = restart;
    console.log(`http bench: restart (saved snapshot) ${restart.samples.join(', ')} ms`);
  }
  const asOf = await asOfTargets(demoDb);
  results.as_of = {
    instants: `a random hour in [${iso(asOf.from)}, ${iso(asOf.to)}] per request (${(asOf.to - asOf.from) / 3600 + 1} hours); month ends: ${asOf.monthEnds.map(iso).join(', ')}`,
    vaults: asOf.vaults.length,
    wallets: asOf.wallets.length,
  };

  const servers: Running[] = [];
  try {
    const vaultdArgv = (db: string, port: number) => [
      process.execPath,
      vaultdBin,
      'serve',
      '--db',
      db,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--no-jobs',
      '--config',
      configPath,
    ];
    const startVaultd = async (name: string, db: string) => {
      const port = await freePort();
      const s = await startProcess(name, vaultdArgv(db, port), { core: core(settings.serverCore), dir, port, readyPath: '/v1/vaults' });
      servers.push(s);
      return s;
    };
    const demo = await startVaultd('vaultd-demo', demoDb);
    const wide = await startVaultd('vaultd-wide', wideDb);

    // What vaultd answers, checked once before measuring.
    const { path: onePath, res: one } = await findPageNear1KB(demo.port);
    const etag = one.headers.etag!;
    const notModified = await get(demo.port, onePath, { 'Accept-Encoding': 'identity', 'If-None-Match': etag });
    if (notModified.status !== 304) throw new Error(`If-None-Match ${etag} on ${onePath} answered ${notModified.status}, not 304`);
    const ts = await findTimeseries(demo.port, onePath.split('/')[3]!);
    const brPath = '/v1/vaults?include_hidden=true';
    const br = await get(wide.port, brPath, { 'Accept-Encoding': 'br' });
    if (br.status !== 200 || br.headers['content-encoding'] !== 'br')
      throw new Error(`${brPath} with Accept-Encoding: br answered ${br.status} ${br.headers['content-encoding'] ?? 'identity'}`);
    const brRaw = brotliDecompressSync(br.body);
    results.bodies = {
      page_1kb: { path: onePath, bytes: one.body.length, headers: one.rawHeaders.length },
      page_br: {
        path: brPath,
        bytes: brRaw.length,
        br_bytes: br.body.length,
        vaults: (JSON.parse(brRaw.toString()) as { meta: { count: number } }).meta.count,
      },
      not_modified: { path: onePath, if_none_match: etag },
      timeseries: { path: ts.path, bytes: ts.bytes, gzip_bytes: ts.gzipBytes, accept_encoding: settings.browserAcceptEncoding, points: 1000 },
    };

    // Baselines serve the bytes vaultd sent, with its header list.
    const copyHeaders = (f: Fetched) => f.rawHeaders.filter(([k]) => !SERVER_HEADERS.has(k.toLowerCase()));
    writeFileSync(join(dir, 'one.json'), one.body);
    writeFileSync(join(dir, 'br.json.br'), br.body);
    writeFileSync(join(dir, 'window.json.gz'), ts.gzip.body);
    const spec: BaselineSpec = {
      routes: {
        '/one': { bodyFile: join(dir, 'one.json'), headers: copyHeaders(one) },
        '/br': { bodyFile: join(dir, 'br.json.br'), headers: copyHeaders(br) },
        '/window': { bodyFile: join(dir, 'window.json.gz'), headers: copyHeaders(ts.gzip) },
      },
    };
    const specPath = join(dir, 'baseline.json');
    writeFileSync(specPath, JSON.stringify(spec, null, 2));
    const node = (kind: string) => async (port: number) =>
      startProcess(kind, [process.execPath, join(here, 'baselineServer.js'), kind, String(port), specPath], {
        core: core(settings.serverCore),
        dir,
        port,
        readyPath: '/one',
      });
    const candidates: { name: string; br: boolean; start: (port: number) => Promise<Running> }[] = [{ name: 'uws', br: true, start: node('uws') }];
    if (tools.nginx) {
      const files = Object.entries(spec.routes).map(([path, r]) => ({ path, file: r.bodyFile, headers: r.headers }));
      candidates.push({ name: 'nginx', br: true, start: (port) => startNginx({ core: core(settings.serverCore), dir, port, files }) });
    }
    if (tools.fastify) candidates.push({ name: 'fastify', br: false, start: node('fastify') });
    candidates.push({ name: 'node_http', br: false, start: node('node-http') });
    const baselines: { name: string; br: boolean; server: Running }[] = [];
    for (const b of candidates) {
      if (settings.baselines.length > 0 && !settings.baselines.includes(b.name)) continue;
      let server: Running;
      try {
        server = await b.start(await freePort());
      } catch (err) {
        notes.push(`${b.name} baseline skipped: ${(err as Error).message}`);
        continue;
      }
      servers.push(server);
      // Alternatives must serve the same bytes: the bench compares like with like.
      const got = await get(server.port, '/one', { 'Accept-Encoding': 'identity' });
      if (got.status !== 200 || !got.body.equals(one.body))
        throw new Error(`${b.name} baseline serves other bytes on /one (${got.status}, ${got.body.length} B)`);
      if (b.br) {
        const gotBr = await get(server.port, '/br', { 'Accept-Encoding': 'br' });
        if (gotBr.status !== 200 || !gotBr.body.equals(br.body)) throw new Error(`${b.name} baseline serves other bytes on /br`);
        const gotWindow = await get(server.port, '/window', { 'Accept-Encoding': settings.browserAcceptEncoding });
        if (gotWindow.status !== 200 || !gotWindow.body.equals(ts.gzip.body)) throw new Error(`${b.name} baseline serves other bytes on /window`);
      }
      baselines.push({ ...b, server });
    }

    const identity = { 'Accept-Encoding': 'identity' };
    const allCases: Case[] = [
      { id: 'vaultd.page_1kb', server: demo, path: onePath, headers: identity, group: '1kb' },
      ...baselines.map((b): Case => ({ id: `${b.name}.page_1kb`, server: b.server, path: '/one', headers: identity, group: '1kb' })),
      { id: 'vaultd.not_modified_304', server: demo, path: onePath, headers: { ...identity, 'If-None-Match': etag }, group: '1kb' },
      { id: 'vaultd.page_br', server: wide, path: brPath, headers: { 'Accept-Encoding': 'br' }, group: 'br' },
      ...baselines
        .filter((b) => b.br)
        .map((b): Case => ({ id: `${b.name}.page_br`, server: b.server, path: '/br', headers: { 'Accept-Encoding': 'br' }, group: 'br' })),
      { id: 'vaultd.timeseries_1000h', server: demo, path: ts.path, headers: { 'Accept-Encoding': settings.browserAcceptEncoding }, group: null },
      {
        id: 'vaultd.timeseries_1000h_random',
        server: demo,
        path: ts.path,
        headers: { 'Accept-Encoding': settings.browserAcceptEncoding },
        group: null,
        script: randomWindowScript(dir, await windowVaults(demo.port)),
      },
      ...baselines
        .filter((b) => b.br)
        .map(
          (b): Case => ({
            id: `${b.name}.timeseries_1000h`,
            server: b.server,
            path: '/window',
            headers: { 'Accept-Encoding': settings.browserAcceptEncoding },
            group: null,
          }),
        ),
      { id: 'vaultd.timeseries_1000h_identity', server: demo, path: ts.path, headers: identity, group: null },
      // as_of (DESIGN §11.6) beside the latest snapshot's answer of the same route, random resource per request
      ...(['vault_detail', 'positions'] as const).flatMap((route) =>
        (['latest', 'as_of_random', 'as_of_month_end'] as const).map(
          (when): Case => ({
            id: `vaultd.${route}_${when}`,
            server: demo,
            path: route === 'vault_detail' ? `/v1/vaults/${asOf.vaults[0]}` : `/v1/users/${asOf.wallets[0]}/positions`,
            headers: identity,
            group: null,
            script: asOfScript(dir, route, when, asOf),
          }),
        ),
      ),
    ];
    const cases = allCases.filter((c) => selected(c.id));
    // naming only the measurements beside the rows (cold_start, readers) runs no row
    const extrasOnly = settings.only.length > 0 && settings.only.every((named) => named === 'cold_start' || named === 'readers');
    if (cases.length === 0 && !extrasOnly) {
      throw new Error(`VAULTD_HTTP_BENCH_ONLY=${settings.only.join(',')} matches no target (${allCases.map((c) => c.id).join(', ')})`);
    }
    if (settings.only.length > 0) results.only = settings.only;
    const wrkOpts = (c: Case) => ({
      url: `http://127.0.0.1:${c.server.port}${c.path}`,
      headers: c.headers,
      connections: settings.connections,
      core: core(settings.clientCore),
      serverPids: c.server.pids,
      ...(c.script ? { script: c.script } : {}),
    });

    // The timeseries window leaves ~250 KB of garbage per request in vaultd-demo: it warms up
    // first and is measured last, so its major GCs do not fall into the page measurements.
    const paged = cases.filter((c) => c.group !== null);
    const unpaged = cases.filter((c) => c.group === null);
    console.log('http bench: warm-up');
    for (const c of [...unpaged, ...paged]) await runWrk({ ...wrkOpts(c), seconds: settings.warmupSeconds });
    // Saturation in rounds, every target once per round, so a slow minute of this shared VM
    // falls on all of them; each target reports its median round (all rounds are kept).
    const satRounds = new Map<string, WrkRun[]>();
    const saturation = new Map<string, WrkRun>();
    const saturateAll = async (list: Case[]) => {
      for (let round = 0; round < settings.saturationRounds; round++) {
        for (const c of list) {
          const r = await runWrk({ ...wrkOpts(c), seconds: settings.seconds });
          satRounds.set(c.id, [...(satRounds.get(c.id) ?? []), r]);
          console.log(
            `http bench: ${c.id} saturation round ${round + 1}: ${r.req_per_s} req/s, ${r.server_cpu_us_per_req} µs CPU/req, p99 ${r.latency_ms.p99} ms`,
          );
        }
      }
      for (const c of list) {
        const sorted = [...satRounds.get(c.id)!].sort((a, b) => a.req_per_s - b.req_per_s);
        saturation.set(c.id, sorted[Math.floor(sorted.length / 2)]!);
      }
    };
    await saturateAll(paged);
    const rates = new Map<string, number>();
    for (const g of ['1kb', 'br'] as const) {
      if (!paged.some((c) => c.group === g)) continue;
      const slowest = Math.min(...paged.filter((c) => c.group === g).map((c) => saturation.get(c.id)!.req_per_s));
      rates.set(g, Math.max(100, Math.round(Math.min(settings.rate, slowest / 2) / 100) * 100));
    }
    results.fixed_rates = Object.fromEntries(rates);
    const fixedRounds = new Map<string, WrkRun[]>();
    for (let round = 0; round < settings.rounds; round++) {
      for (const c of paged) {
        const rate = rates.get(c.group!)!;
        const r = await runWrk({ ...wrkOpts(c), seconds: settings.fixedSeconds, script: paceScript(dir, rate) });
        fixedRounds.set(c.id, [...(fixedRounds.get(c.id) ?? []), r]);
      }
      console.log(`http bench: fixed-rate round ${round + 1}/${settings.rounds} done`);
    }
    await saturateAll(unpaged);
    results.saturation_rounds_req_per_s = Object.fromEntries([...satRounds].map(([id, rs]) => [id, rs.map((r) => r.req_per_s)]));
    const runs: Record<string, CaseResult> = {};
    for (const c of cases) {
      const rounds = fixedRounds.get(c.id);
      runs[c.id] = { path: c.path, saturation: saturation.get(c.id)!, ...(rounds ? { fixed_rate: combineRounds(rates.get(c.group!)!, rounds) } : {}) };
    }
    results.runs = runs;
    results.rss_after_run = { vaultd_demo: rssMiB(demo.pid), vaultd_wide: rssMiB(wide.pid) };

    // scale-out: the demo server wrote its snapshot directory; readers serve it behind nginx
    let readers: ReadersResult | null = null;
    if (tools.nginx && extraSelected('readers')) {
      console.log('http bench: 1 vs 3 snapshot readers behind nginx');
      try {
        readers = await measureReaders({
          dir,
          vaultdBin,
          snapshotDir: `${demoDb}.snapshot`,
          configPath,
          path: onePath,
          seconds: settings.seconds,
          connections: settings.connections,
          clientCore: core(settings.clientCore),
        });
        results.readers_behind_nginx = readers;
        console.log(`http bench: through nginx, 1 reader ${readers.readers_1.req_per_s} req/s, 3 readers ${readers.readers_3.req_per_s} req/s`);
      } catch (err) {
        notes.push(`readers behind nginx skipped: ${(err as Error).message}`);
      }
    }
    results.load_average_end = loadAverage();

    const { table, summary } = compare(runs, coldStart, results.rss_after_run as Record<string, { rss_mib: number } | null>, { restart, readers });
    results.summary = summary;
    for (const [id, r] of Object.entries(runs)) {
      const errors = r.saturation.non_2xx_3xx + (r.fixed_rate?.non_2xx_3xx ?? 0);
      if (errors > 0) notes.push(`${id}: wrk counted ${errors} non-2xx/3xx responses; its figures are not valid`);
      if (r.fixed_rate && r.fixed_rate.req_per_s < 0.9 * r.fixed_rate.offered_req_per_s) {
        notes.push(`${id}: the fixed-rate runs reached ${r.fixed_rate.req_per_s} of ${r.fixed_rate.offered_req_per_s} req/s offered`);
      }
      const sat = r.saturation;
      if (sat.server_cpu_util < 0.8 && (sat.core_busy[settings.serverCore] ?? 0) > 0.95) {
        notes.push(
          `${id}: at saturation the server had ${Math.round(sat.server_cpu_util * 100)} % of its core, which was ${Math.round((sat.core_busy[settings.serverCore] ?? 0) * 100)} % busy: other processes shared it, req/s is understated`,
        );
      }
    }
    if (notes.length > 0) results.notes = notes;
    return { name: 'http', results, table };
  } finally {
    for (const s of servers.reverse()) await s.stop();
  }
}

/** The enabled vault whose /v1/vaults/{id} page is largest but at most 1 KiB (identity). */
async function findPageNear1KB(port: number): Promise<{ path: string; res: Fetched }> {
  const list = await get(port, '/v1/vaults?include_hidden=true', { 'Accept-Encoding': 'identity' });
  if (list.status !== 200) throw new Error(`/v1/vaults answered ${list.status}`);
  const ids = (JSON.parse(list.body.toString()) as { data: { vault_id: string }[] }).data.map((d) => d.vault_id);
  let best: { path: string; res: Fetched } | null = null;
  for (const id of ids) {
    const path = `/v1/vaults/${id}`;
    const res = await get(port, path, { 'Accept-Encoding': 'identity' });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    if (res.body.length <= 1024 && (!best || res.body.length > best.res.body.length)) best = { path, res };
  }
  if (!best) throw new Error('no vault page of at most 1 KiB in the demo world');
  if (!best.res.headers.etag) throw new Error(`${best.path} sent no ETag`);
  return best;
}

/**
 * An hourly window of exactly 1,000 points (answered from the series slices per request, never
 * a cached response); its gzip answer to a browser's Accept-Encoding must decode to the identity one.
 */
async function findTimeseries(port: number, vaultId: string): Promise<{ path: string; bytes: number; gzipBytes: number; gzip: Fetched }> {
  const path = `/v1/vaults/${vaultId}/timeseries?granularity=hour&limit=1000&start=${settings.timeseriesStart}`;
  const id = { 'X-Request-Id': 'bench-check' };
  const res = await get(port, path, { 'Accept-Encoding': 'identity', ...id });
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.body.toString().slice(0, 200)}`);
  const count = (JSON.parse(res.body.toString()) as { meta: { count: number } }).meta.count;
  if (count !== 1000) throw new Error(`${path} returned ${count} points, not 1000`);
  const gz = await get(port, path, { 'Accept-Encoding': settings.browserAcceptEncoding, ...id });
  if (gz.status !== 200 || gz.headers['content-encoding'] !== 'gzip' || !gunzipSync(gz.body).equals(res.body)) {
    throw new Error(
      `${path} with Accept-Encoding: ${settings.browserAcceptEncoding} answered ${gz.status} ${gz.headers['content-encoding'] ?? 'identity'}, not the identity body gzipped`,
    );
  }
  return { path, bytes: res.body.length, gzipBytes: gz.body.length, gzip: gz };
}

const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

interface AsOfTargets {
  /** vaults enabled and listed by `from` (no 404 at any instant drawn) */
  vaults: string[];
  /** the most active wallets with a position by `from` */
  wallets: string[];
  from: number;
  to: number;
  /** 00:00 UTC of each month's first day in (from, to] */
  monthEnds: number[];
}

/** What the as_of rows ask for, read from the demo database before it is served. */
async function asOfTargets(db: string): Promise<AsOfTargets> {
  const common = createCommon(loadConfig(VAULT_TYPES, {}, {}), { logger: createLogger('silent') });
  const store = await createStore(common, { path: db, readOnly: true });
  try {
    const end = await store.one<{ t: bigint }>('bench.end', 'SELECT epoch(max(ts))::BIGINT AS t FROM vault_snapshots');
    const to = Math.floor(Number(end!.t) / 3600) * 3600 - 3600;
    const from = to - settings.asOfDays * 86_400;
    const at = `make_timestamp(${from}::BIGINT * 1000000)`;
    const vaults = await store.rows<{ v: string }>(
      'bench.vaults',
      `SELECT vault_id AS v FROM vaults WHERE visibility <> 'disabled' AND listed_at <= ${at} ORDER BY 1`,
    );
    const wallets = await store.rows<{ w: string }>(
      'bench.wallets',
      `SELECT wallet AS w FROM vault_events GROUP BY 1 HAVING min(ts) <= ${at} ORDER BY count(*) DESC, 1 LIMIT ${settings.asOfWallets}`,
    );
    const monthEnds: number[] = [];
    for (let d = new Date(from * 1000); ; ) {
      d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
      if (d.getTime() / 1000 > to) break;
      monthEnds.push(d.getTime() / 1000);
    }
    if (vaults.length === 0 || wallets.length === 0) throw new Error(`as_of rows: no vault or wallet of ${db} exists by ${iso(from)}`);
    return { vaults: vaults.map((r) => r.v), wallets: wallets.map((r) => r.w), from, to, monthEnds };
  } finally {
    await store.close();
  }
}

/**
 * A wrk script asking, per request, a random vault's detail or a random wallet's positions:
 * as the latest snapshot has it, as of a random past hour, or as of a random month end (the few
 * instants an audit asks, whose views stay cached).
 */
function asOfScript(dir: string, route: 'vault_detail' | 'positions', when: 'latest' | 'as_of_random' | 'as_of_month_end', t: AsOfTargets): string {
  const path = join(dir, `${route}-${when}.lua`);
  const ids = route === 'vault_detail' ? t.vaults : t.wallets;
  const prefix = route === 'vault_detail' ? '/v1/vaults/' : '/v1/users/';
  const suffix = route === 'vault_detail' ? '' : '/positions';
  const instant =
    when === 'latest'
      ? '""'
      : when === 'as_of_random'
        ? `"?as_of=" .. os.date("!%Y-%m-%dT%H:%M:%SZ", ${t.from} + 3600 * math.random(0, ${(t.to - t.from) / 3600}))`
        : `"?as_of=" .. os.date("!%Y-%m-%dT%H:%M:%SZ", ends[math.random(1, #ends)])`;
  writeFileSync(
    path,
    `-- generated by bench/http/httpBench.ts: ${route}, ${when}
local ids = { ${ids.map((v) => `"${v}"`).join(', ')} }
local ends = { ${t.monthEnds.join(', ')} }
math.randomseed(7)
request = function()
  return wrk.format(nil, "${prefix}" .. ids[math.random(1, #ids)] .. "${suffix}" .. ${instant})
end
`,
  );
  return path;
}

/** Earliest start of a random window (hours before timeseriesStart); windows start within randomWindowHours from it. */
const randomFrom = () => Date.parse(settings.timeseriesStart) / 1000 - (settings.randomWindowHours / 2) * 3600;

/** The demo's vaults whose hourly history holds a full 1,000-point window at every random start. */
async function windowVaults(port: number): Promise<string[]> {
  const list = await get(port, '/v1/vaults?include_hidden=true', { 'Accept-Encoding': 'identity' });
  const ids = (JSON.parse(list.body.toString()) as { data: { vault_id: string }[] }).data.map((d) => d.vault_id);
  const full: string[] = [];
  for (const id of ids) {
    const counts: number[] = [];
    for (const start of [randomFrom(), randomFrom() + settings.randomWindowHours * 3600]) {
      const res = await get(port, `/v1/vaults/${id}/timeseries?granularity=hour&limit=1000&start=${iso(start)}`, { 'Accept-Encoding': 'identity' });
      counts.push(res.status === 200 ? (JSON.parse(res.body.toString()) as { meta: { count: number } }).meta.count : 0);
    }
    // the first hour at the earliest start, and a full window at the last
    const first = await get(port, `/v1/vaults/${id}/timeseries?granularity=hour&limit=1&start=${iso(randomFrom())}`, { 'Accept-Encoding': 'identity' });
    const t0 = first.status === 200 ? (JSON.parse(first.body.toString()) as { data: { timestamp: string }[] }).data[0]?.timestamp : undefined;
    if (counts.every((c) => c === 1000) && t0 === iso(randomFrom())) full.push(id);
  }
  if (full.length === 0) throw new Error('no demo vault has a full hourly history over the random windows');
  return full;
}

/**
 * A wrk script sending, per request, a 1,000-point hourly window of a random vault (of `vaults`)
 * at a random start hour: ${settings.randomWindowHours} starts × vaults distinct windows, so
 * nothing about one request is the last one's (the cursor, the ETag, the slices' CRC shifts).
 */
function randomWindowScript(dir: string, vaults: string[]): string {
  const path = join(dir, 'random-window.lua');
  writeFileSync(
    path,
    `-- generated by bench/http/httpBench.ts: random 1,000-point hourly windows
local vaults = { ${vaults.map((v) => `"${v}"`).join(', ')} }
local from = ${randomFrom()}
math.randomseed(7)
request = function()
  local v = vaults[math.random(1, #vaults)]
  local start = os.date("!%Y-%m-%dT%H:%M:%SZ", from + 3600 * math.random(0, ${settings.randomWindowHours - 1}))
  return wrk.format(nil, "/v1/vaults/" .. v .. "/timeseries?granularity=hour&limit=1000&start=" .. start)
end
`,
  );
  return path;
}

/**
 * Spawn `vaultd serve` on the existing demo database, until the first 200 on /v1/vaults;
 * `fresh`: with no saved snapshot (it recomputes), else on the snapshot the last start saved.
 */
async function measureColdStart(db: string, configPath: string, opts: { fresh: boolean }): Promise<{ samples: number[]; median: number }> {
  const samples: number[] = [];
  for (let i = 0; i < settings.coldStarts; i++) {
    if (opts.fresh) rmSync(`${db}.snapshot`, { recursive: true, force: true });
    const port = await freePort();
    const t0 = performance.now();
    const child = spawnPinned(
      [process.execPath, vaultdBin, 'serve', '--db', db, '--port', String(port), '--host', '127.0.0.1', '--no-jobs', '--config', configPath],
      {
        core: null,
        log: join(settings.dir, 'vaultd-cold.log'),
      },
    );
    try {
      samples.push(Math.round(await waitFor200(child, port, '/v1/vaults', t0, 60_000, 2)));
    } finally {
      await stopChild(child);
    }
  }
  return { samples, median: median(samples) };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run()
    .then((out) => {
      console.table(out.table);
      const path = join(repoRoot, 'bench', 'results', 'local', 'http-results.json');
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, JSON.stringify(out.results, null, 2) + '\n');
      console.log(`results: ${path} (bench/results/latest.json is written by \`npm run bench -- http --update\`)`);
    })
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}

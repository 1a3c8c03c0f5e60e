// Ponder, the comparison of the ingest bench: installed on demand into bench/ponder (its own
// package.json and lockfile, never part of the root install), given the project of
// ponderProject.ts in a temporary folder, started against the same running devnet, and timed
// from its first log line to "Completed indexing across all chains". Its JSON log lines on
// stdout are the clock (Ponder's own timestamps); /metrics gives its RPC request counts and a
// route of the project the stored row counts. Anything that keeps it from running (install,
// start, timeout) is returned as the outcome with the error text, not thrown.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { DevnetManifest } from '../../devnet/index.js';
import { writePonderProject } from './ponderProject.js';
import { processCpuMs } from './procCpu.js';
import { benchPackageDir, ensureBenchPackage } from '../benchPackage.js';

export const PONDER_DIR = benchPackageDir('ponder');

export interface PonderCounts {
  vault_events: number;
  requests: number;
  snapshots: number;
}

export interface PonderOutcome {
  status: 'ok' | 'not_installed' | 'failed' | 'timeout';
  /** why it did not complete, with the tool's own words */
  reason?: string;
  version?: string;
  install_ms?: number;
  /** process start → "Completed indexing across all chains" (build, PGlite start-up, indexing) */
  wall_ms?: number;
  /** "Started backfill indexing" → "Completed indexing across all chains", by Ponder's clock */
  indexing_ms?: number;
  /** "Started backfill indexing" → "Completed backfill indexing across all chains" (head − 30 blocks; the rest is live sync) */
  backfill_ms?: number;
  /** CPU time of the ponder process (all its threads) up to completion */
  cpu_ms?: number;
  /** events Ponder ran handlers for: logs + one block event per block */
  events_indexed?: number;
  counts?: PonderCounts;
  rpc_requests?: Record<string, number>;
  /** Ponder's adaptive per-provider request-rate limit: where it ended */
  rps_limit_last?: number;
  log_tail?: string[];
}

export interface PonderRunOptions {
  manifest: DevnetManifest;
  timeoutMs: number;
  say: (line: string) => void;
}

export async function ensurePonder(say: (line: string) => void): Promise<{ ok: true; version: string; install_ms: number } | { ok: false; reason: string }> {
  return ensureBenchPackage('ponder', 'ponder', say);
}

export async function runPonder(opts: PonderRunOptions): Promise<PonderOutcome> {
  const { manifest, say } = opts;
  const installed = await ensurePonder(say);
  if (!installed.ok) return { status: 'not_installed', reason: installed.reason };
  const out: PonderOutcome = { status: 'failed', version: installed.version, install_ms: installed.install_ms };
  const dir = mkdtempSync(join(tmpdir(), 'vaultd-ingest-bench-ponder-'));
  let child: ChildProcess | undefined;
  const tail: string[] = [];
  try {
    writePonderProject(dir, manifest);
    // the project resolves `ponder`, `hono` and `viem` from bench/ponder's install
    symlinkSync(join(PONDER_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const port = await freePort();
    const bin = join(PONDER_DIR, 'node_modules', 'ponder', 'dist', 'esm', 'bin', 'ponder.js');
    const env: NodeJS.ProcessEnv = { ...process.env, PONDER_TELEMETRY_DISABLED: 'true', NODE_ENV: 'production' };
    // PGlite, not a Postgres named by the environment
    delete env.DATABASE_URL;
    delete env.DATABASE_PRIVATE_URL;
    const t0 = performance.now();
    child = spawn(process.execPath, [bin, '--log-format', 'json', '--log-level', 'debug', 'start', '--port', String(port), '--schema', 'bench'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<string>((res) => {
      child!.once('exit', (code, signal) => res(`ponder exited (code ${code}, signal ${signal}) before it reached the head`));
      child!.once('error', (err) => res(`ponder could not start: ${err.message}`));
    });
    const stderr = createInterface({ input: child.stderr! });
    stderr.on('line', (line) => keep(tail, `stderr: ${line}`));

    let started: number | undefined;
    let backfillDone: number | undefined;
    let events = 0;
    let lastProgress = '';
    const completed = new Promise<number>((res) => {
      createInterface({ input: child!.stdout! }).on('line', (line) => {
        let e: { level?: number; time?: number; msg?: string; [k: string]: unknown };
        try {
          e = JSON.parse(line) as typeof e;
        } catch {
          keep(tail, line);
          return;
        }
        if ((e.level ?? 0) >= 30) keep(tail, line);
        // (its own shutdown on our SIGTERM warns too: not worth echoing)
        if ((e.level ?? 0) >= 40 && out.wall_ms === undefined) say(`ponder: ${line}`);
        switch (e.msg) {
          case 'Started backfill indexing':
            started = e.time;
            say(`ponder: backfill of blocks ${String(e.block_range)} started`);
            break;
          case 'Indexed block range':
          case 'Indexed block':
            events += Number(e.event_count ?? 0);
            break;
          case 'Increased JSON-RPC provider RPS limit':
          case 'Decreased JSON-RPC provider RPS limit':
            out.rps_limit_last = Number(e.rps_limit);
            break;
          case 'Updated backfill indexing progress':
            if (e.progress !== lastProgress)
              say(
                `ponder: ${String(e.progress)} indexed${e.estimate ? ` (its estimate: ${String(e.estimate)} left)` : ''}, rps limit ${out.rps_limit_last ?? 20}`,
              );
            lastProgress = String(e.progress);
            break;
          case 'Completed backfill indexing across all chains':
            backfillDone = e.time;
            say('ponder: backfill done; the last blocks come through its live sync');
            break;
          case 'Completed indexing across all chains':
            out.wall_ms = Math.round(performance.now() - t0);
            out.cpu_ms = processCpuMs(child!.pid!);
            res(e.time ?? Date.now());
            break;
        }
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), opts.timeoutMs)));
    const end = await Promise.race([completed, exited, timedOut]);
    clearTimeout(timer);
    out.events_indexed = events;
    if (end === 'timeout') {
      out.status = 'timeout';
      out.reason = `not at the head after ${Math.round(opts.timeoutMs / 1000)} s (last progress ${lastProgress || 'none'})`;
    } else if (typeof end === 'string') {
      out.reason = end;
    } else {
      out.status = 'ok';
      if (started !== undefined) out.indexing_ms = end - started;
      if (started !== undefined && backfillDone !== undefined) out.backfill_ms = backfillDone - started;
      out.rpc_requests = await rpcRequests(port);
      out.counts = await getJson<PonderCounts>(`http://127.0.0.1:${port}/bench/counts`);
    }
  } catch (err) {
    out.status = 'failed';
    out.reason = err instanceof Error ? err.message : String(err);
  } finally {
    if (child) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
  if (out.status !== 'ok') out.log_tail = tail.slice(-12);
  return out;
}

/** `ponder_rpc_request_duration_count{chain, method}` summed by method. */
async function rpcRequests(port: number): Promise<Record<string, number>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  const text = await res.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^ponder_rpc_request_duration_count\{[^}]*method="([^"]+)"[^}]*\} (\d+)/gm)) {
    out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  }
  return out;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((res) => child.once('exit', res));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

function keep(tail: string[], line: string): void {
  tail.push(line.length > 600 ? `${line.slice(0, 600)}…` : line);
  if (tail.length > 40) tail.shift();
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

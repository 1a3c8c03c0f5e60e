// `npm run bench -- stream` (with stream.bench.ts; alone: `-- streamSettlement`), issue #35:
// how long after the publish that settles an async request a client knows it, with the SDK's
// `waitForSettlement` listening on the live feed against polling only (the upstream default
// of a poll every 5 s, and a poll every 1 s). On the living demo world: a real `vaultd serve`
// with `demo.hour_seconds` small, so requests settle every few seconds. The publish instant is
// the server's own: its `refreshed` log line (pino, ms) of the generation whose `wallet.request`
// message says the request settled (`refreshed_at` on the wire is whole seconds). One clock:
// everything runs on this machine.
// Size: SETTLE_BENCH_REQUESTS (default 12), SETTLE_BENCH_HOUR_SECONDS (default 2).
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '../client/index.js';
import type { RequestItem } from '../client/types.gen.js';
import type { BenchOutput } from './run.js';
import { median } from './stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', '..', 'bin', 'vaultd.js');
const REQUESTS = Number(process.env.SETTLE_BENCH_REQUESTS ?? 12);
const HOUR_SECONDS = Number(process.env.SETTLE_BENCH_HOUR_SECONDS ?? 2);
/**
 * The demo refunds a request after at least a day and gives it a deadline at most a third of
 * its wait after it (jobs/demo/simulateVault.ts terms()): a pending request whose deadline is
 * more than 41 h after it will settle, so every wait below ends in a settlement.
 */
const SURELY_SETTLES_MS = 41 * 3600_000;
const MODES = [
  { name: 'stream', label: 'waitForSettlement over the feed (poll every 5 s behind it)', options: { stream: true, pollMs: 5000 } },
  { name: 'poll_5s', label: 'polling only, every 5 s (the upstream default)', options: { stream: false, pollMs: 5000 } },
  { name: 'poll_1s', label: 'polling only, every 1 s', options: { stream: false, pollMs: 1000 } },
] as const;
type Mode = (typeof MODES)[number]['name'];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const round0 = (x: number) => Math.round(x);

interface Served {
  child: ChildProcess;
  port: number;
  /** ms since the epoch of each generation's publish (its `refreshed`/`recomputed` log line) */
  published: Map<number, number>;
}

async function serve(dir: string, db: string): Promise<Served> {
  writeFileSync(
    join(dir, 'c.json'),
    JSON.stringify({
      server: { host: '127.0.0.1', port: 0 },
      demo: { hour_seconds: HOUR_SECONDS },
      // every waiter polls from this one address: polling must not be rate-limited here
      rate_limits: { anonymous_per_minute: 1_000_000 },
      stream: { max_connections_per_ip: 1000 },
    }),
  );
  const child = fork(BIN, ['serve', '--config', join(dir, 'c.json'), '--db', db], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const published = new Map<number, number>();
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const l = JSON.parse(line) as { msg?: string; time?: string; generation?: number; port?: number };
        if (l.msg === 'listening') resolve(l.port!);
        if ((l.msg === 'refreshed' || l.msg === 'recomputed') && l.generation !== undefined) published.set(l.generation, Date.parse(l.time!));
      }
    });
    child.once('exit', (c) => reject(new Error(`serve exited ${c}`)));
  });
  return { child, port, published };
}

interface Sample {
  request_hash: string;
  generation: number;
  /** the observer's receipt of the settling message after the publish, ms */
  feed_ms: number;
  /** each mode's wait end after the publish, ms */
  delay_ms: Record<Mode, number>;
}

/** One batch: every surely-settling pending request not measured yet, each waited for three ways at once. */
async function batch(s: Served, wallets: string[], seen: Set<string>, want: number): Promise<{ samples: Sample[]; skipped: number }> {
  const base = `http://127.0.0.1:${s.port}`;
  const client = createClient({ baseUrl: base });
  const picks: { w: string; r: RequestItem }[] = [];
  for (const w of wallets)
    for await (const r of client.iterate.requests(w, { status: 'pending', includeHidden: true, limit: 1000 }))
      if (!seen.has(r.request_hash) && r.deadline !== null && Date.parse(r.deadline) - Date.parse(r.requested.timestamp) > SURELY_SETTLES_MS)
        picks.push({ w, r });
  // the nearest deadlines first: they settle soonest
  picks.sort((a, b) => a.r.deadline!.localeCompare(b.r.deadline!));
  const chosen = picks.slice(0, Math.min(want, 40));
  for (const p of chosen) seen.add(p.r.request_hash);
  if (chosen.length === 0) return { samples: [], skipped: 0 };
  // the observer: which generation settled each request, and when the feed said so
  const settledBy = new Map<string, { generation: number; at: number }>();
  const observer = client.stream({ topics: [...new Set(chosen.map((p) => `wallet:${p.w}` as const))] });
  observer.on('error', () => undefined);
  observer.on('message', (m) => {
    const d = m.data as RequestItem;
    if (m.kind === 'wallet.request' && d.status === 'settled' && !settledBy.has(d.request_hash))
      settledBy.set(d.request_hash, { generation: m.generation, at: Date.now() });
  });
  await new Promise<void>((r) => observer.on('open', () => r()));
  const started = Date.now();
  const waits = chosen.map(async ({ w, r }) => {
    const ends = await Promise.all(
      MODES.map(async (m) => {
        await client.waitForSettlement({ wallet: w, requestHash: r.request_hash, vaultId: r.vault_id, timeoutMs: 600_000, ...m.options });
        return Date.now();
      }),
    );
    return { r, ends };
  });
  const done = await Promise.all(waits);
  // the last publish's log line and feed message may trail the waits by a moment
  await new Promise((r) => setTimeout(r, 1000));
  observer.close();
  const samples: Sample[] = [];
  let skipped = 0;
  for (const { r, ends } of done) {
    const by = settledBy.get(r.request_hash);
    const at = by === undefined ? undefined : s.published.get(by.generation);
    // settled before every waiter was in place (2 s to open its stream): not a wait for a publish
    if (by === undefined || at === undefined || at < started + 2000) {
      skipped++;
      continue;
    }
    samples.push({
      request_hash: r.request_hash,
      generation: by.generation,
      feed_ms: by.at - at,
      delay_ms: Object.fromEntries(MODES.map((m, i) => [m.name, ends[i]! - at])) as Record<Mode, number>,
    });
  }
  return { samples, skipped };
}

export async function run(): Promise<BenchOutput> {
  const load_average_start = loadavg().map((x) => Math.round(x * 100) / 100);
  const dir = mkdtempSync(join(tmpdir(), 'vaultd-settle-bench-'));
  const db = join(dir, 'w.duckdb');
  try {
    const demo = spawnSync(process.execPath, [BIN, 'demo', '--db', db, '--seed', '7', '--now', '2026-06-01T00:00:00Z', '--wallets', '30', '--days', '15'], {
      env: { ...process.env, VAULTD_LOG_LEVEL: 'warn' },
    });
    if (demo.status !== 0) throw new Error(`vaultd demo failed: ${demo.stderr}`);
    const wallets = spawnSync(process.execPath, [BIN, 'wallets', '--db', db], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    const s = await serve(dir, db);
    try {
      const seen = new Set<string>();
      const samples: Sample[] = [];
      let skipped = 0;
      for (let b = 0; b < 6 && samples.length < REQUESTS; b++) {
        const got = await batch(s, wallets, seen, REQUESTS - samples.length);
        samples.push(...got.samples);
        skipped += got.skipped;
        // no pending request that surely settles right now: let the world move on
        if (got.samples.length + got.skipped === 0) await new Promise((r) => setTimeout(r, 10 * HOUR_SECONDS * 1000));
      }
      if (samples.length === 0) throw new Error('no request settled while the bench waited');
      const figures = Object.fromEntries(
        MODES.map((m) => {
          const xs = samples.map((x) => x.delay_ms[m.name]);
          return [m.name, { median_ms: round0(median(xs)), p90_ms: round0(pct(xs, 90)), max_ms: round0(Math.max(...xs)) }];
        }),
      ) as Record<Mode, { median_ms: number; p90_ms: number; max_ms: number }>;
      const feed = samples.map((x) => x.feed_ms);
      const transport = typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'function' ? 'websocket' : 'sse';
      return {
        name: 'stream_settlement',
        results: {
          command: `SETTLE_BENCH_REQUESTS=${REQUESTS} SETTLE_BENCH_HOUR_SECONDS=${HOUR_SECONDS} npm run bench -- streamSettlement`,
          node: process.version,
          client_transport: transport,
          hour_seconds: HOUR_SECONDS,
          requests: samples.length,
          skipped_settled_before_the_waits: skipped,
          load_average_start,
          load_average_end: loadavg().map((x) => Math.round(x * 100) / 100),
          delay_from_publish_ms: figures,
          feed_message_after_publish_ms: { median: round0(median(feed)), p90: round0(pct(feed, 90)) },
          samples,
        },
        table: [
          ...MODES.map((m) => ({ figure: `${m.label}: publish → client knows`, requests: samples.length, ...figures[m.name] })),
          { figure: 'the feed message itself: publish → observer', requests: samples.length, median_ms: round0(median(feed)), p90_ms: round0(pct(feed, 90)) },
        ],
      };
    } finally {
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

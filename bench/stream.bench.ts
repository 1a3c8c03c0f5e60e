// `npm run bench -- stream` (issue #35): fan-out of one publish to N WebSocket subscribers.
// (1) uWS pub/sub (what /v1/stream does: app.publish once per message) against a loop of
// ws.send per subscriber, on the same in-process uWS app and the same 25 messages of a
// publish that changes every vault, twice: each subscriber on one `vault:{id}` (its one
// message: the issue's figure) and each on `vaults` (all 25); subscribers are raw-TCP clients
// in two processes pinned to the other core. Latency: from the start of the publish to each
// subscriber's receipt of its last message of the publish (one clock: same machine). (2) RSS per idle connection of a
// real `vaultd serve` holding N streams on `tvl`. (3) The anchor: the same N clients polling
// /v1/vaults every 5 s (computed from the real body's size).
// Size: STREAM_BENCH_N (default 2000), STREAM_BENCH_ROUNDS (default 15), STREAM_BENCH_PROCS
// (client processes, default 2; each holds N / PROCS sockets, so it and the server, which holds
// all N, must fit the open-file limit: checked before anything starts).
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import uWS from 'uWebSockets.js';
import type { BenchOutput } from './run.js';
import { median } from './stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', '..', 'bin', 'vaultd.js');
const N = Number(process.env.STREAM_BENCH_N ?? 2000);
const ROUNDS = Number(process.env.STREAM_BENCH_ROUNDS ?? 15);
const PROCS = Number(process.env.STREAM_BENCH_PROCS ?? 2);
const now = () => performance.timeOrigin + performance.now();
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const round1 = (x: number) => Math.round(x * 10) / 10;
const hasTaskset = spawnSync('sh', ['-c', 'command -v taskset']).status === 0;

interface Clients {
  procs: ChildProcess[];
  ready: Promise<void>;
  /** resolves with every connection's receipt time of round `seq` */
  round(seq: number): Promise<number[]>;
  stop(): void;
}

function startClients(port: number, path: string, topic: string, spread = 1): Clients {
  const procs: ChildProcess[] = [];
  const waiting = new Map<number, { times: number[]; left: number; resolve: (t: number[]) => void }>();
  const early = new Map<number, number[][]>();
  let ready = 0;
  let onReady!: () => void;
  const readyP = new Promise<void>((r) => (onReady = r));
  let base = 0;
  for (let i = 0; i < PROCS; i++) {
    const count = Math.floor(N / PROCS) + (i < N % PROCS ? 1 : 0);
    const args = [String(port), String(count), path, topic, String(base), String(spread)];
    base += count;
    const p = fork(join(here, 'stream', 'subscriber.js'), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    // the other core: the server (this process) keeps core 0
    if (hasTaskset && p.pid) spawnSync('taskset', ['-p', '-c', '1', String(p.pid)]);
    p.on('message', (m: { type: string; seq?: number; times?: number[]; message?: string }) => {
      if (m.type === 'ready' && ++ready === PROCS) onReady();
      if (m.type === 'error') console.error('subscriber:', m.message);
      if (m.type === 'round') {
        const w = waiting.get(m.seq!);
        if (!w) {
          early.set(m.seq!, [...(early.get(m.seq!) ?? []), m.times!]);
          return;
        }
        w.times.push(...m.times!);
        if (--w.left === 0) w.resolve(w.times);
      }
    });
    procs.push(p);
  }
  return {
    procs,
    ready: readyP,
    round: (seq) =>
      new Promise((resolve) => {
        const got = early.get(seq) ?? [];
        early.delete(seq);
        const w = { times: got.flat(), left: PROCS - got.length, resolve };
        if (w.left === 0) resolve(w.times);
        else waiting.set(seq, w);
      }),
    stop: () => {
      for (const p of procs) p.kill();
    },
  };
}

const VAULTS = 25;

/**
 * The 25 messages of a publish that changes every vault (~1.5 KB each, like a vaults item):
 * `all`, every message on `vaults` (a subscriber to the list gets all 25); `one`, message i on
 * `vault:i` (a subscriber to one vault gets its one message).
 */
function publishMessages(seq: number, shape: 'all' | 'one'): { topic: string; body: Buffer }[] {
  const item = JSON.stringify({ metrics: { tvl: { native: '15812294.240862', usd: '15812294.24' }, apy_7d: 0.0412, pad: 'x'.repeat(1300) } });
  return Array.from({ length: VAULTS }, (_, i) => {
    const topic = shape === 'all' ? 'vaults' : `vault:${i}`;
    const last = shape === 'one' || i === VAULTS - 1;
    const body = `{"topic":"${topic}","kind":"vault.metrics","generation":${seq},"refreshed_at":"2026-01-01T00:00:00Z","data":${item}${last ? `,"last":true,"seq":${seq}` : ''}}`;
    return { topic, body: Buffer.from(body) };
  });
}

/**
 * One publish to N subscribers, by pub/sub and by a loop of ws.send: `all`, every subscriber on
 * `vaults` (25 messages each); `one`, each subscriber on one `vault:i` (its one message).
 */
async function fanout(shape: 'all' | 'one'): Promise<Record<string, Record<string, number>>> {
  const app = uWS.App();
  const topicOf = new Map<uWS.WebSocket<unknown>, string>();
  app.ws('/s', {
    compression: uWS.DISABLED,
    idleTimeout: 120,
    maxBackpressure: 64 * 1024 * 1024,
    message: (ws, message) => {
      const topic = (JSON.parse(Buffer.from(message).toString()) as { topics: string[] }).topics[0]!;
      topicOf.set(ws, topic);
      ws.subscribe(topic);
      ws.send('{"op":"subscribed"}', false);
    },
    close: (ws) => void topicOf.delete(ws),
  });
  const listen = await new Promise<uWS.us_listen_socket>((r, j) => app.listen('127.0.0.1', 0, (t) => (t ? r(t) : j(new Error('listen')))));
  const port = uWS.us_socket_local_port(listen as unknown as uWS.us_socket);
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const clients = startClients(port, '/s', shape === 'all' ? 'vaults' : 'vault:%', shape === 'all' ? 1 : VAULTS);
  await clients.ready;
  await new Promise((r) => setTimeout(r, 500));
  global.gc?.();
  const rss1 = process.memoryUsage().rss;
  const out: Record<string, Record<string, number>> = {};
  let seq = 0;
  for (const mode of ['pubsub', 'send_loop'] as const) {
    const p50s: number[] = [];
    const p99s: number[] = [];
    const maxs: number[] = [];
    const sends: number[] = [];
    const p99End: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const s = ++seq;
      const messages = publishMessages(s, shape);
      const receipts = clients.round(s);
      const t0 = now();
      if (mode === 'pubsub') for (const m of messages) app.publish(m.topic, m.body, false);
      else
        for (const [ws, topic] of topicOf) {
          const mine = messages.filter((m) => m.topic === topic);
          ws.cork(() => mine.forEach((m) => ws.send(m.body, false)));
        }
      const end = now();
      const times = await receipts;
      // from the start of the publish: uWS queues a publish and writes it when the JS returns,
      // so the end of the call would flatter pub/sub
      const lat = times.map((t) => t - t0);
      const afterEnd = times.map((t) => t - end);
      sends.push(end - t0);
      p50s.push(pct(lat, 50));
      p99s.push(pct(lat, 99));
      maxs.push(Math.max(...lat));
      p99End.push(pct(afterEnd, 99));
      await new Promise((r) => setTimeout(r, 100));
    }
    out[mode] = {
      publish_call_ms_median: round1(median(sends)),
      receipt_p50_ms: round1(median(p50s)),
      receipt_p99_ms: round1(median(p99s)),
      receipt_max_ms: round1(median(maxs)),
      after_call_end_p99_ms: round1(median(p99End)),
    };
  }
  clients.stop();
  uWS.us_listen_socket_close(listen);
  for (const ws of topicOf.keys()) ws.close();
  out.memory = { uws_rss_per_connection_bytes: Math.round((rss1 - rss0) / N) };
  return out;
}

async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${name} `))
      ?.split(' ')[1] ?? Number.NaN,
  );
}

/** A real `vaultd serve` holding N idle streams on `tvl`: RSS per connection; the REST-polling anchor. */
async function realServer(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'vaultd-stream-bench-'));
  const db = join(dir, 'w.duckdb');
  try {
    const demo = spawnSync(process.execPath, [BIN, 'demo', '--db', db, '--seed', '7', '--now', '2026-06-01T00:00:00Z', '--wallets', '30', '--days', '15'], {
      env: { ...process.env, VAULTD_LOG_LEVEL: 'warn' },
    });
    if (demo.status !== 0) throw new Error(`vaultd demo failed: ${demo.stderr}`);
    writeFileSync(join(dir, 'c.json'), JSON.stringify({ server: { host: '127.0.0.1', port: 0 }, stream: { max_connections_per_ip: N + 10 } }));
    const child = fork(BIN, ['serve', '--config', join(dir, 'c.json'), '--db', db, '--no-jobs'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    if (hasTaskset && child.pid) spawnSync('taskset', ['-p', '-c', '0', String(child.pid)]);
    const port = await new Promise<number>((resolve, reject) => {
      let buf = '';
      child.stderr!.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(buf);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (c) => reject(new Error(`serve exited ${c}: ${buf}`)));
    });
    try {
      const list = Buffer.from(await (await fetch(`http://127.0.0.1:${port}/v1/vaults`)).arrayBuffer());
      const items = JSON.parse(list.toString()).data as unknown[];
      const messageBytes = items.reduce<number>((n, it) => n + JSON.stringify(it).length + 110, 0);
      // RSS moves with the collector: the median of several samples on each side
      const sampled = async () => {
        const xs: number[] = [];
        for (let i = 0; i < 7; i++) {
          await new Promise((r) => setTimeout(r, 500));
          xs.push(await metric(port, 'vaultd_process_resident_memory_bytes'));
        }
        return median(xs);
      };
      await new Promise((r) => setTimeout(r, 3000));
      const rss0 = await sampled();
      const clients = startClients(port, '/v1/stream', 'tvl');
      await clients.ready;
      const rss1 = await sampled();
      clients.stop();
      // the anchor: every client polls /v1/vaults every 5 s; the stream sends a publish's
      // changes (every vault, at most one publish per 15 s ingest round)
      return {
        vaultd_rss_per_idle_stream_bytes: Math.round((rss1 - rss0) / N),
        polling_requests_per_minute: N * 12,
        polling_bytes_per_minute: N * 12 * list.length,
        stream_bytes_per_minute_at_4_publishes: N * 4 * messageBytes,
        stream_requests_per_minute: 0,
      };
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The soft open-file limit of this process (the client processes and `vaultd serve` inherit it). */
function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
}

export async function run(): Promise<BenchOutput> {
  // the server side holds all N sockets, each client process N / PROCS (+ a margin for files and pipes)
  const limit = openFileLimit();
  if (N + 200 > limit) throw new Error(`STREAM_BENCH_N=${N} needs ${N + 200} open files in one process; the limit is ${limit} (raise it with ulimit -n)`);
  const load_average_start = loadavg().map((x) => Math.round(x * 100) / 100);
  const one = await fanout('one');
  const f = await fanout('all');
  const real = await realServer();
  const table: Record<string, string | number | boolean | null>[] = [
    { figure: `uWS pub/sub (app.publish): ${N} subscribers, each on one vault:{id} (its 1 message of 25)`, ...one.pubsub },
    { figure: `loop of ws.send per subscriber: ${N} subscribers, each on one vault:{id}`, ...one.send_loop },
    { figure: `uWS pub/sub (app.publish): ${N} subscribers on vaults, 25 messages each`, ...f.pubsub },
    { figure: `loop of ws.send per subscriber: ${N} subscribers on vaults, 25 messages each`, ...f.send_loop },
    { figure: 'uWS RSS per connection (in-process app), bytes', value: one.memory?.uws_rss_per_connection_bytes ?? null },
    ...Object.entries(real).map(([figure, value]) => ({ figure, value })),
  ];
  const load_average_end = loadavg().map((x) => Math.round(x * 100) / 100);
  return {
    name: 'stream',
    results: { subscribers: N, rounds: ROUNDS, procs: PROCS, load_average_start, load_average_end, fanout_one_vault_each: one, fanout: f, real_server: real },
    table,
  };
}

// The ingest bench's chain, in a process of its own: the devnet (Hardhat over HTTP JSON-RPC,
// DESIGN §6.2) started, simulated and served until the parent goes away. Out of process so
// that the indexers measured (vaultd in the bench process, Ponder in its own) share no event
// loop with the node, and so the simulation is never inside a timed part.
// Parent side: `startBenchDevnet` (fork + IPC). Child side: this file run by `fork`.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { simulateDevnet, startDevnet, type DevnetManifest } from '../../devnet/index.js';

export interface BenchDevnetOptions {
  days: number;
  wallets: number;
  seed: number;
}

export interface BenchDevnet {
  manifest: DevnetManifest;
  /** wall time of the simulation (deploy + every hour), in the child */
  simulateMs: number;
  /** the node's process, for its CPU time */
  pid: number;
  stop(): Promise<void>;
}

type ChildMessage =
  | { type: 'progress'; hour: number; hours: number }
  | { type: 'ready'; manifest: DevnetManifest; simulateMs: number }
  | { type: 'failed'; error: string };

/** Forks the child, waits for its manifest; `onProgress` sees every closed hour. */
export async function startBenchDevnet(opts: BenchDevnetOptions, onProgress?: (hour: number, hours: number) => void): Promise<BenchDevnet> {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(opts)], {
    // the manifest is sent as a structured clone: no JSON round trip of its fields
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await new Promise<{ manifest: DevnetManifest; simulateMs: number }>((resolve, reject) => {
    child.on('message', (m: ChildMessage) => {
      if (m.type === 'progress') onProgress?.(m.hour, m.hours);
      else if (m.type === 'ready') resolve(m);
      else reject(new Error(`bench devnet failed: ${m.error}`));
    });
    void exited.then((code) => reject(new Error(`bench devnet exited with code ${code} before it was ready`)));
  });
  let stopped: Promise<void> | undefined;
  return {
    ...ready,
    pid: child.pid!,
    stop: () => (stopped ??= stopChild(child, exited)),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** The child: start, simulate, report, then serve until the parent disconnects or signals. */
async function child(opts: BenchDevnetOptions): Promise<void> {
  const send = (m: ChildMessage) => process.send?.(m);
  // the default genesis (2025-01-01): the same seed gives the same chain on every run
  const devnet = await startDevnet();
  const stop = () => void devnet.stop().finally(() => process.exit(0));
  process.once('disconnect', stop);
  process.once('SIGTERM', stop);
  try {
    const t0 = performance.now();
    const manifest = await simulateDevnet(devnet, { ...opts, onProgress: (hour, hours) => send({ type: 'progress', hour, hours }) });
    send({ type: 'ready', manifest, simulateMs: Math.round(performance.now() - t0) });
  } catch (err) {
    send({ type: 'failed', error: err instanceof Error ? err.message : String(err) });
    await devnet.stop();
    process.exit(1);
  }
}

if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  void child(JSON.parse(process.argv[2] ?? '{}') as BenchDevnetOptions);
}

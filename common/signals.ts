// SIGTERM and SIGINT at any moment of any command: the first one closes every resource the
// process registered (each Common's shutdown, last registered first) and exits 0 within a
// bounded time; a second one exits at once. Work in flight is not half-written: every store
// write is a transaction (or a temp file renamed at the end), so what a stop cuts short is
// rolled back by DuckDB or removed by its closer.
import type { Shutdown } from './shutdown.js';

const shutdowns = new Set<Shutdown>();
let stopping: string | null = null;

/** Called by createCommon: this shutdown runs on a stop signal. */
export function trackShutdown(shutdown: Shutdown): void {
  shutdowns.add(shutdown);
}

/** The signal that asked the process to stop, or null. */
export function stopRequested(): string | null {
  return stopping;
}

/** Install once, at the CLI entry, before any command starts work. */
export function installStopSignals(exit: (code: number) => void, graceMs = 5_000): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping !== null) return exit(0);
    stopping = signal;
    setTimeout(() => exit(0), graceMs).unref();
    void Promise.allSettled([...shutdowns].map((s) => s.close(signal))).then(() => exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

// SIGTERM and SIGINT at any moment of any command, handled here only (a long-running command
// waits on its shutdown's `closed`): the first one closes every resource the process
// registered (each Common's shutdown: its AbortSignal first, so work in flight ends at its next
// check, then its closers, last registered first) and exits 0 within a bounded time; a second
// one exits at once. Work in flight is not half-written: every store write is a transaction
// (or a temp file renamed at the end), so what a stop cuts short is rolled back by DuckDB or
// removed by its closer. Work that registered a progress counter (serve's snapshot files) is
// waited for past the grace while the counter still moves.
import type { Shutdown } from './shutdown.js';

const shutdowns = new Set<Shutdown>();
const holds = new Set<() => number>();
let stopping: string | null = null;

/** How long a stop waits, at most, past its grace for work that is still progressing. */
export const HOLD_MAX_MS = 120_000;

/** Called by createCommon: this shutdown runs on a stop signal. */
export function trackShutdown(shutdown: Shutdown): void {
  shutdowns.add(shutdown);
}

/** The signal that asked the process to stop, or null. */
export function stopRequested(): string | null {
  return stopping;
}

/**
 * Let a stop wait past its grace while `progress` (a count of work done) moves: work that is
 * well under way is finished, not thrown away (a publish's snapshot files take ~5–11 s to write on
 * the benchmark world, and a stop that cut them made the next start recompute for ~30 s). The
 * stop exits once no counter moved for a step, or HOLD_MAX_MS after the grace. A counter that
 * stands still costs a stop nothing, so a holder registers once for the process's life.
 */
export function holdStopWhileProgressing(progress: () => number): void {
  holds.add(progress);
}

/** Install once, at the CLI entry, before any command starts work. */
export function installStopSignals(exit: (code: number) => void, graceMs = 5_000, holdStepMs = 1_000): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping !== null) return exit(0);
    stopping = signal;
    const counts = () => new Map([...holds].map((p) => [p, p()]));
    let seen = counts();
    const holdUntil = performance.now() + graceMs + HOLD_MAX_MS;
    const expire = () => {
      const now = counts();
      const moved = [...now].some(([p, n]) => seen.get(p) !== n);
      seen = now;
      if (moved && performance.now() < holdUntil) setTimeout(expire, holdStepMs).unref();
      else exit(0);
    };
    setTimeout(expire, graceMs).unref();
    void Promise.allSettled([...shutdowns].map((s) => s.close(signal))).then(() => exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

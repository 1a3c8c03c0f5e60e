// What a source of raw rows is to the runtime (runtime/createRuntime.ts): a name, when its rounds
// run, and one round against an open store. The runtime decides the rest — when, one round at
// a time across sources, retries, the engine refresh after a round that changed inputs, the
// stop — so a source holds no timer, no lock and no refresh of its own (STYLE.md habit 20).
import type { Schedule } from '../common/scheduler.js';
import type { Store } from '../store/store.js';

export type { Schedule } from '../common/scheduler.js';

export interface RoundResult {
  /** the round wrote rows a snapshot is built from: the engine refreshes after it */
  inputsChanged: boolean;
  /** the round changed the registry (a vault listed): the world is reloaded whole, not refreshed */
  registryChanged?: boolean;
  /** the round deleted stored rows (a reorg rolled back): a refresh only appends, so the world is reloaded whole */
  rowsRemoved?: boolean;
}

export interface Source {
  /** the job's name in logs and metrics (`vaultd_job_runs_total{job}`) */
  readonly name: string;
  readonly schedule: Schedule;
  /**
   * One round. Every write is a transaction that leaves the store consistent; `signal` is the
   * stop: a long round checks it between its steps (ranges, providers) and ends early, leaving
   * what it committed.
   */
  round(store: Store, signal: AbortSignal): Promise<RoundResult>;
}

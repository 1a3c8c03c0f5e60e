// Parameters of the demo world (DESIGN §7) and the time anchors derived from them.
// A world is fixed by its creation parameters; it grows later only through `until` (see simulate.ts).
import { VaultdError } from '../../common/errors.js';

export interface DemoParams {
  seed: number;
  /** Unix seconds: the instant the world was created (its first end); rows after it are not written */
  now: number;
  /** null = the curated default set; N = that many deployments (scale worlds) */
  vaults: number | null;
  wallets: number;
  /**
   * The world's span in days: its first hour is `now − days` unless `start` is given, and the
   * registry lays its listings out over [first hour, first hour + days] — never over `now`, so
   * a world built to a later `now` holds every row of one built to an earlier one.
   */
  days: number;
  /** Unix seconds, on the hour: the first simulated hour (default `now − days`, on the hour) */
  start?: number;
}

export const DEMO_DEFAULTS = { seed: 42, wallets: 600, days: 420, vaults: null } as const satisfies Omit<DemoParams, 'now'>;

const HOUR = 3600;
const DAY = 86_400;

/** The last full hour at or before `nowMs` (milliseconds), in Unix seconds. */
export function lastFullHour(nowMs: number): number {
  return Math.floor(nowMs / 3_600_000) * HOUR;
}

/**
 * First hour of the world's history: `start`, or `now − days` on the hour. It depends on the
 * creation parameters only, never on how far the world has since been extended, which is what
 * makes runs prefix-stable (DESIGN §11.6).
 */
export function demoStart(params: DemoParams): number {
  return params.start ?? Math.floor((params.now - params.days * DAY) / HOUR) * HOUR;
}

/**
 * The instant the registry's listings are laid out against ("n days before now" in the
 * catalogue): the first hour plus the span, whatever `now` the world is built or extended to.
 */
export function demoHorizon(params: DemoParams): number {
  return demoStart(params) + params.days * DAY;
}

/** Throws a USAGE error naming the bad field; every entry point of the demo calls it. */
export function assertDemoParams(params: DemoParams): void {
  const bad = (field: string, want: string, got: unknown): never => {
    throw new VaultdError('USAGE', `demo: "${field}" must be ${want}, got ${JSON.stringify(got)}`, {
      details: { field },
    });
  };
  if (!Number.isSafeInteger(params.seed)) bad('seed', 'a safe integer', params.seed);
  if (!Number.isSafeInteger(params.now)) bad('now', 'Unix seconds', params.now);
  if (params.start !== undefined && (!Number.isSafeInteger(params.start) || params.start % HOUR !== 0)) bad('start', 'Unix seconds on the hour', params.start);
  if (params.start !== undefined && params.start > params.now) bad('start', `at or before now (${params.now})`, params.start);
  if (!Number.isSafeInteger(params.days) || params.days < 1 || params.days > 3650) bad('days', 'an integer from 1 to 3650', params.days);
  if (!Number.isSafeInteger(params.wallets) || params.wallets < 1 || params.wallets > 10_000_000)
    bad('wallets', 'an integer from 1 to 10000000', params.wallets);
  if (params.vaults !== null && (!Number.isSafeInteger(params.vaults) || params.vaults < 1 || params.vaults > 100_000))
    bad('vaults', 'null or an integer from 1 to 100000', params.vaults);
}

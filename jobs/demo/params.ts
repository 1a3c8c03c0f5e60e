// Parameters of the demo world (DESIGN §7) and the time anchors derived from them.
// A world is fixed by its creation parameters; it grows later only through `until` (see simulate.ts).
import { VaultdError } from '../../common/errors.js';

export interface DemoParams {
  seed: number;
  /** Unix seconds, on the hour: the instant the world was created (its first end). */
  now: number;
  /** null = the curated default set; N = that many deployments (scale worlds) */
  vaults: number | null;
  wallets: number;
  /** days of history before `now` */
  days: number;
}

export const DEMO_DEFAULTS = { seed: 42, wallets: 600, days: 420, vaults: null } as const satisfies Omit<DemoParams, 'now'>;

const HOUR = 3600;
const DAY = 86_400;

/** The last full hour at or before `nowMs` (milliseconds), in Unix seconds. */
export function lastFullHour(nowMs: number): number {
  return Math.floor(nowMs / 3_600_000) * HOUR;
}

/**
 * First hour of the world's history: `now − days`. It depends on the creation parameters only,
 * never on how far the world has since been extended, which is what makes runs prefix-stable.
 */
export function demoStart(params: DemoParams): number {
  return params.now - params.days * DAY;
}

/** Throws a USAGE error naming the bad field; every entry point of the demo calls it. */
export function assertDemoParams(params: DemoParams): void {
  const bad = (field: string, want: string, got: unknown): never => {
    throw new VaultdError('USAGE', `demo: "${field}" must be ${want}, got ${JSON.stringify(got)}`, {
      details: { field },
    });
  };
  if (!Number.isSafeInteger(params.seed)) bad('seed', 'a safe integer', params.seed);
  if (!Number.isSafeInteger(params.now) || params.now % HOUR !== 0) bad('now', 'Unix seconds on the hour', params.now);
  if (!Number.isSafeInteger(params.days) || params.days < 1 || params.days > 3650) bad('days', 'an integer from 1 to 3650', params.days);
  if (!Number.isSafeInteger(params.wallets) || params.wallets < 1 || params.wallets > 10_000_000)
    bad('wallets', 'an integer from 1 to 10000000', params.wallets);
  if (params.vaults !== null && (!Number.isSafeInteger(params.vaults) || params.vaults < 1 || params.vaults > 100_000))
    bad('vaults', 'null or an integer from 1 to 100000', params.vaults);
}

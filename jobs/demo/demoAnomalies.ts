// The demo world's two deliberate data-quality incidents (DESIGN §7, §11.3), so every quality
// flag has a real instance: a missed snapshot stretch and a one-hour unit-price jump. Each is
// fixed to one vault and one instant set by the world's creation parameters (its first hour and
// span), never by `now`, so the world stays prefix-stable and every other vault's rows are untouched.
import { familyOf } from '../../families/index.js';
import type { VaultRow } from '../../model/rows.js';

const HOUR = 3600;
const DAY = 86_400;

/** Fraction of the world's span (in whole days from its first hour) whose following midnight ends the missed stretch. */
export const MISSED_SNAPSHOT_AT = 0.5;
/** Hours without a snapshot, ending at that midnight: a day point there is `carried` and `stale_snapshot` (> 2 h). */
export const MISSED_SNAPSHOT_HOURS = 3;
/** Fraction of the world's span (in whole days) whose first hour's unit price jumps, and the next hour's falls back. */
export const UNIT_PRICE_JUMP_AT = 0.75;
/** The jump, in percent (above the 5 % `jump` threshold, DESIGN §11.3). */
export const UNIT_PRICE_JUMP_PCT = 6n;

export interface DemoAnomalies {
  /** the vault whose snapshots are missing in [missedFrom, missedTo] (hours, inclusive) */
  missedVault: string | null;
  missedFrom: number;
  missedTo: number;
  /** the vault whose unit price is UNIT_PRICE_JUMP_PCT % higher for the one hour `jumpHour` */
  jumpVault: string | null;
  jumpHour: number;
}

/**
 * Day ⌊days/2⌋ and ⌊3·days/4⌋ (210 and 315 of the default 420; 100 and 150 of the pinned test
 * world's 200). Picks the vaults from the registry alone (canonical order, listed before the world's first
 * hour, visible): the first one that publishes its unit price misses the snapshots (its price
 * publication stalled, so share movements meanwhile price at the last published one), the first
 * one that does not carries the jump (a real one-hour price spike, e.g. a donation swept back).
 */
export function demoAnomalies(vaults: readonly VaultRow[], start: number, days: number): DemoAnomalies {
  const old = vaults.filter((v) => v.listed_at < start + HOUR && v.visibility === 'visible');
  const missedTo = Math.ceil((start + Math.floor(days * MISSED_SNAPSHOT_AT) * DAY) / DAY) * DAY;
  const missedFrom = missedTo - (MISSED_SNAPSHOT_HOURS - 1) * HOUR;
  const jumpHour = start + Math.floor(days * UNIT_PRICE_JUMP_AT) * DAY;
  // a world too short to have a snapshot before either instant has neither
  return {
    missedVault: missedFrom > start ? (old.find((v) => familyOf(v.vault_type).publishesUnitPrice)?.vault_id ?? null) : null,
    missedFrom,
    missedTo,
    jumpVault: jumpHour > start ? (old.find((v) => !familyOf(v.vault_type).publishesUnitPrice)?.vault_id ?? null) : null,
    jumpHour,
  };
}

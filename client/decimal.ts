// Exact decimal arithmetic over the API's amount strings for the helpers (flows, position
// history): an amount is an integer at a scale; sums happen at the larger scale. Internal.
import { fromBaseUnits, scaleOf, toBaseUnits } from './units.js';

export interface Dec {
  int: bigint;
  scale: number;
}

export const ZERO: Dec = { int: 0n, scale: 0 };

export function dec(value: string): Dec {
  const scale = scaleOf(value);
  return { int: toBaseUnits(value, scale), scale };
}

function at(x: Dec, scale: number): bigint {
  return x.int * 10n ** BigInt(scale - x.scale);
}

export function add(a: Dec, b: Dec): Dec {
  const scale = Math.max(a.scale, b.scale);
  return { int: at(a, scale) + at(b, scale), scale };
}

export function neg(a: Dec): Dec {
  return { int: -a.int, scale: a.scale };
}

export function sub(a: Dec, b: Dec): Dec {
  return add(a, neg(b));
}

/** -1, 0 or 1 */
export function cmp(a: Dec, b: Dec): number {
  const d = sub(a, b).int;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

export function sign(a: Dec): number {
  return a.int < 0n ? -1 : a.int > 0n ? 1 : 0;
}

export function format(x: Dec): string {
  return fromBaseUnits(x.int, x.scale);
}

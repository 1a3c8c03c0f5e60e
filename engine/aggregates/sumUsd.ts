// DESIGN §4.5: every USD aggregate is the exact decimal sum of its parts' published (already
// rounded) USD strings, so a client can re-add it; null when none of the parts is priced.
import { D, formatUsd } from '../../model/format/numbers.js';

export function sumUsd(parts: Iterable<string | null>): string | null {
  let total: InstanceType<typeof D> | null = null;
  for (const p of parts) if (p !== null) total = total ? total.plus(p) : new D(p);
  return total === null ? null : formatUsd(total);
}

/** The highest finite value, or null when all are null. */
export function maxOrNull(values: Iterable<number | null>): number | null {
  let best: number | null = null;
  for (const v of values) if (v !== null && (best === null || v > best)) best = v;
  return best;
}

// A wallet's totals in USD: value, cost basis and PnL summed exactly from the positions'
// decimal strings (never as floats), and the return on cost (PnL ÷ cost basis). A position
// whose USD leg is null is left out of that sum and named, so the page can say why.
import { add, dec, format, ZERO, type Dec } from '../client/decimal.js';
import type { AmountPair, Position } from '../client/types.gen.js';

export interface UsdTotal {
  /** the exact sum over the positions that have this USD leg; null when none has it */
  usd: string | null;
  /** vault ids of positions without this USD leg */
  missing: string[];
}

export interface Portfolio {
  positions: number;
  value: UsdTotal;
  costBasis: UsdTotal;
  pnl: UsdTotal;
  /** PnL ÷ cost basis in percent, two decimals, over positions with both legs; null when cost ≤ 0 or none */
  returnOnCostPct: string | null;
  /** positions with assets waiting in a deposit request, and with shares waiting in a redemption */
  pendingDeposits: number;
  pendingRedemptions: number;
}

function total(positions: readonly Position[], leg: (p: Position) => AmountPair): UsdTotal {
  let sum: Dec = ZERO;
  let any = false;
  const missing: string[] = [];
  for (const p of positions) {
    const usd = leg(p).usd;
    if (usd === null) missing.push(p.vault_id);
    else {
      sum = add(sum, dec(usd));
      any = true;
    }
  }
  return { usd: any ? format(sum) : null, missing };
}

/** a ÷ b × 100, rounded half away from zero to two decimals; null when b ≤ 0 */
export function ratioPercent(a: Dec, b: Dec): string | null {
  const scale = Math.max(a.scale, b.scale);
  const x = a.int * 10n ** BigInt(scale - a.scale);
  const y = b.int * 10n ** BigInt(scale - b.scale);
  if (y <= 0n) return null;
  const neg = x < 0n;
  const q = ((neg ? -x : x) * 20_000n + y) / (2n * y); // hundredths of a percent, rounded
  const s = q.toString().padStart(3, '0');
  return `${neg && q !== 0n ? '-' : ''}${s.slice(0, -2)}.${s.slice(-2)}`;
}

export function portfolio(positions: readonly Position[]): Portfolio {
  let pnl: Dec = ZERO;
  let cost: Dec = ZERO;
  let both = 0;
  for (const p of positions) {
    const m = p.metrics;
    if (m.pnl.total.usd === null || m.cost_basis.usd === null) continue;
    pnl = add(pnl, dec(m.pnl.total.usd));
    cost = add(cost, dec(m.cost_basis.usd));
    both++;
  }
  const positive = (s: string) => /[1-9]/.test(s) && !s.startsWith('-');
  return {
    positions: positions.length,
    value: total(positions, (p) => p.metrics.value),
    costBasis: total(positions, (p) => p.metrics.cost_basis),
    pnl: total(positions, (p) => p.metrics.pnl.total),
    returnOnCostPct: both === 0 ? null : ratioPercent(pnl, cost),
    pendingDeposits: positions.filter((p) => positive(p.metrics.pending_deposit_assets.native)).length,
    pendingRedemptions: positions.filter((p) => positive(p.metrics.pending_redeem_shares)).length,
  };
}

// Hourly USD prices (source `demo`) for the world's numeraires: stablecoins near their peg,
// ETH and BTC wrappers on shared mean-reverting paths, one unpriced token, one 3-day gap.
import type { RawSink } from '../../store/rawSink.js';
import type { TokenRow } from '../../model/rows.js';
import { CLOCK_ANCHOR_TS, PRICE_GAP, tokenByAddress, type PriceModel } from './catalog.js';
import { createRng } from './prng.js';

const HOUR = 3600;
const DAY = 86_400;
const YEAR = 365 * DAY;

interface PricedToken {
  row: TokenRow;
  key: string;
  symbol: string;
  model: PriceModel;
  gap: boolean;
}

export interface PriceRunResult {
  /** rows emitted */
  count: number;
  /** latest USD price at or before `end` per `${chain_id}:${address}` (unpriced tokens absent) */
  latestUsd: Map<string, number>;
  /** per token, its latest price at every emitted instant on a multiple of `markEvery` */
  marks: Map<string, Map<number, number>>;
}

/** Log-space Ornstein–Uhlenbeck: wanders around `mean` with stationary spread σ/√(2θ). */
class LogPath {
  private x: number;
  constructor(
    private readonly rng: ReturnType<typeof createRng>,
    private readonly mu: number,
    private readonly theta: number,
    private readonly sigma: number,
  ) {
    this.x = mu + 0.1 * rng.normal();
  }
  step(): number {
    this.x += this.theta * (this.mu - this.x) + this.sigma * this.rng.normal();
    return Math.exp(this.x);
  }
}

/**
 * Emits one PriceRow per priced token per hour in [start, end] with ts > fromTs. Paths are
 * drawn from `start` every time, so a later `end` never changes an earlier price.
 */
export function simulatePrices(
  seed: number,
  tokens: readonly TokenRow[],
  start: number,
  end: number,
  fromTs: number,
  sink: RawSink,
  /** the last instant emitted (default `end`); and every this many seconds, each token's price is kept in `marks` */
  opts: { until?: number; markEvery?: number } = {},
): PriceRunResult {
  const until = opts.until ?? end;
  const markEvery = opts.markEvery ?? Number.POSITIVE_INFINITY;
  const marks = new Map<string, Map<number, number>>();
  const priced: PricedToken[] = [];
  for (const row of tokens) {
    const cat = tokenByAddress(row.chain_id, row.address);
    const model = cat?.price ?? 'none';
    if (model === 'none') continue;
    priced.push({
      row,
      key: `${row.chain_id}:${row.address}`,
      symbol: cat!.symbol,
      model,
      gap: row.chain_id === PRICE_GAP.chain_id && cat!.symbol === PRICE_GAP.symbol,
    });
  }
  // hourly σ ≈ 65 %/yr for ETH, 55 %/yr for BTC; half-life of a deviation ≈ 36 days
  const eth = new LogPath(createRng(seed, 'price:ETH'), Math.log(3200), 0.0008, 0.0065);
  const btc = new LogPath(createRng(seed, 'price:BTC'), Math.log(85_000), 0.0008, 0.0055);
  const eur = new LogPath(createRng(seed, 'price:EUR'), Math.log(1.09), 0.002, 0.0008);
  // each symbol's own small deviation from its reference (depeg noise), shared across chains
  const symbols = [...new Set(priced.map((p) => p.symbol))].sort();
  const pegRng = symbols.map((s) => createRng(seed, `price:peg:${s}`));
  const peg = new Float64Array(symbols.length);
  const pegValue = new Float64Array(symbols.length);
  const symbolModel = symbols.map((s) => priced.find((p) => p.symbol === s)!.model);
  const symbolIndex = priced.map((p) => symbols.indexOf(p.symbol));

  const gapStart = start + PRICE_GAP.offsetDays * DAY;
  const gapEnd = gapStart + PRICE_GAP.hours * HOUR;
  const latestUsd = new Map<string, number>();
  let count = 0;
  for (let ts = start; ts <= end; ts += HOUR) {
    const ethUsd = eth.step();
    const btcUsd = btc.step();
    const eurUsd = eur.step();
    for (let i = 0; i < symbols.length; i++) {
      peg[i] = 0.95 * peg[i]! + 0.00015 * pegRng[i]!.normal();
    }
    for (let i = 0; i < symbols.length; i++) {
      pegValue[i] = reference(symbolModel[i]!, ts, ethUsd, btcUsd, eurUsd) * (1 + peg[i]!);
    }
    for (let j = 0; j < priced.length; j++) {
      const p = priced[j]!;
      if (p.gap && ts >= gapStart && ts < gapEnd) continue;
      const usd = pegValue[symbolIndex[j]!]!;
      latestUsd.set(p.key, usd);
      if (ts <= fromTs || ts > until) continue;
      sink.price({ chain_id: p.row.chain_id, address: p.row.address, ts, usd: formatUsd(usd, p.model), source: 'demo' });
      count++;
    }
    if (ts % markEvery === 0 && ts > fromTs && ts <= until) {
      for (const [key, usd] of latestUsd) {
        let m = marks.get(key);
        if (!m) marks.set(key, (m = new Map()));
        m.set(ts, usd);
      }
    }
  }
  return { count, latestUsd, marks };
}

function reference(model: PriceModel, ts: number, eth: number, btc: number, eur: number): number {
  switch (model) {
    case 'eth':
      return eth;
    // wstETH accrues staking yield against ETH (~2.8 %/yr), anchored to a fixed date
    case 'wsteth':
      return eth * 1.17 * Math.exp((0.028 * (ts - CLOCK_ANCHOR_TS)) / YEAR);
    case 'btc':
      return btc;
    case 'eur':
      return eur;
    default:
      return 1;
  }
}

/** Plain decimal string, no exponent, no trailing zeros: 6 digits near $1, cents above $100. */
export function formatUsd(x: number, model: PriceModel): string {
  const digits = model === 'usd' || model === 'eur' ? 6 : 2;
  const s = x.toFixed(digits);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

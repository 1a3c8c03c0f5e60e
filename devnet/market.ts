// The devnet's exogenous world, hour by hour and deterministic from the seed: USD prices of
// the numeraires (pushed to the Chainlink-like feeds on deviation or heartbeat, as Chainlink
// does), the Morpho-like vaults' yield rates (re-set daily), and the Aera-like vaults' unit
// prices (struck every hour). Pure: the simulator turns its outputs into transactions.
import { createRng, type Rng } from '../jobs/demo/prng.js';

const HOURS_PER_YEAR = 8760;
const SECONDS_PER_YEAR = 31_536_000;

export interface FeedSpec {
  /** starting USD price */
  usd: number;
  /** annualised volatility of the hourly log-return */
  vol: number;
  /** pull toward `usd` per hour (stablecoins), 0 for a random walk */
  reversion: number;
  /** push when the price moved by more than this fraction since the last push */
  deviation: number;
  /** push at least this often, in hours */
  heartbeatHours: number;
}

export interface Feed {
  readonly usd: number;
  /** Advances one hour; returns the 8-decimal answer to push, or undefined when no update is due. */
  step(): bigint | undefined;
  /** The current answer, 8 decimals (the first push). */
  answer(): bigint;
}

export function createFeed(seed: number, label: string, spec: FeedSpec): Feed {
  const rng = createRng(seed, `devnet-feed:${label}`);
  const sigma = spec.vol / Math.sqrt(HOURS_PER_YEAR);
  let usd = spec.usd;
  let lastPushed = spec.usd;
  let sincePush = 0;
  const answer = () => BigInt(Math.round(usd * 1e8));
  return {
    get usd() {
      return usd;
    },
    answer,
    step() {
      const pull = spec.reversion * Math.log(spec.usd / usd);
      usd *= Math.exp(pull + sigma * rng.normal() - (sigma * sigma) / 2);
      sincePush++;
      if (Math.abs(usd / lastPushed - 1) < spec.deviation && sincePush < spec.heartbeatHours) return undefined;
      lastPushed = usd;
      sincePush = 0;
      return answer();
    },
  };
}

/** A Morpho-like vault's yield: an APY drawn daily around `meanApy`, as a WAD-per-second rate. */
export function createYieldRate(seed: number, label: string, meanApy: number, apyVol: number): { next(): bigint } {
  const rng = createRng(seed, `devnet-yield:${label}`);
  return {
    next() {
      const apy = Math.min(0.25, Math.max(0.002, meanApy + apyVol * rng.normal()));
      // continuous rate whose yearly compounding gives `apy`
      return BigInt(Math.round((Math.log1p(apy) / SECONDS_PER_YEAR) * 1e18));
    },
  };
}

/** Extra precision carried between hours, so small hourly growth is not lost to rounding. */
const PRICE_SCALE = 10n ** 12n;

/**
 * An Aera-like unit price path (numeraire base units per whole unit, DESIGN §6.1): hourly
 * growth at `meanApy` with small noise, and on rare days a shallow drawdown (at most a few
 * basis points an hour), so APY windows are not a straight line.
 */
export function createUnitPricePath(seed: number, label: string, startPrice: bigint, meanApy: number): { next(): bigint; current(): bigint } {
  const rng: Rng = createRng(seed, `devnet-unit-price:${label}`);
  const drift = Math.log1p(meanApy) / HOURS_PER_YEAR;
  let scaled = startPrice * PRICE_SCALE;
  let drawdownHours = 0;
  return {
    current: () => scaled / PRICE_SCALE,
    next() {
      if (drawdownHours === 0 && rng.chance(1 / 500)) drawdownHours = rng.int(6, 24);
      let growth = drift + 2e-6 * rng.normal();
      if (drawdownHours > 0) {
        growth = -0.0002 * rng.float();
        drawdownHours--;
      }
      scaled = (scaled * BigInt(Math.round((1 + growth) * 1e12))) / 10n ** 12n;
      return scaled / PRICE_SCALE;
    },
  };
}

// The eth_getLogs block span, adapted to the provider (DESIGN §6.1): ×2 after each success up
// to a cap; after a "too large" error, the range the provider names, or half. A provider's
// stated maximum is a hard cap; a bare "too large" (result-count limits vary with density) is
// a soft cap that is probed upward again after a run of successes.
import { VaultdError } from '../../common/errors.js';
import type { RangeHint } from './rpcErrors.js';

export interface RangeSizerOptions {
  initial: number;
  max: number;
  /** successes at a soft cap before probing above it */
  probeAfter?: number;
}

export interface RangeSizer {
  /** blocks to ask for next */
  readonly size: number;
  success(): void;
  /** A range error for a request of `attempted` blocks starting at `from`. Throws when 1 block is too many. */
  failure(hint: RangeHint, attempted: number, from: number): void;
  readonly state: { size: number; hardCap: number; softCap: number };
}

export function createRangeSizer(opts: RangeSizerOptions): RangeSizer {
  const probeAfter = opts.probeAfter ?? 8;
  let hardCap = Math.max(1, opts.max);
  let softCap = hardCap;
  let size = Math.max(1, Math.min(opts.initial, hardCap));
  let streak = 0;
  return {
    get size() {
      return size;
    },
    get state() {
      return { size, hardCap, softCap };
    },
    success() {
      if (size < softCap) {
        size = Math.min(size * 2, softCap);
        return;
      }
      if (softCap < hardCap && ++streak >= probeAfter) {
        streak = 0;
        softCap = Math.min(hardCap, softCap * 2);
        size = softCap;
      }
    },
    failure(hint, attempted, from) {
      if (attempted <= 1) {
        throw new VaultdError('SOURCE_FAILED', `eth_getLogs fails even for the single block ${from}: the provider's result limit is below one block's logs`);
      }
      streak = 0;
      let next: number;
      if (hint.kind === 'suggested') {
        // Alchemy suggests [from, to] for the same start; trust its span
        next = hint.to - (hint.from === from ? from : hint.from) + 1;
      } else if (hint.kind === 'max') {
        hardCap = Math.max(1, Math.min(hardCap, hint.blocks));
        next = hint.blocks < attempted ? hint.blocks : Math.floor(attempted / 2);
      } else {
        next = Math.floor(attempted / 2);
      }
      size = Math.max(1, Math.min(next, attempted - 1, hardCap));
      softCap = Math.min(hardCap, Math.max(size, hint.kind === 'shrink' || hint.kind === 'suggested' ? size : softCap));
    },
  };
}

// Blocks of a vault's serialized series built on the compute pool: a cold window of a long
// history (10,000 hourly points: ~40 blocks to serialize and deflate, tens of ms) must not hold
// the serving thread, which only slices blocks it has. The task carries the vault's series and
// prices as shared-memory views; the blocks come back on their own buffers (transferred).
import { contextOf, type VaultInput } from '../positions/positionItems.js';
import type { Granularity } from '../series/rollups.js';
import { type Block, buildBlock, seriesBufferOf } from './seriesBuffers.js';

export interface SeriesBlocksInput {
  kind: 'seriesBlocks';
  vault: VaultInput;
  granularity: Granularity;
  blocks: number[];
  order: 'asc' | 'desc';
}

export interface SeriesBlocksOutput {
  blocks: { b: number; block: Block }[];
}

export function computeSeriesBlocks(input: SeriesBlocksInput): SeriesBlocksOutput {
  const ctx = contextOf(input.vault);
  if (!ctx || ctx.series.length === 0) return { blocks: [] };
  const sb = seriesBufferOf(ctx.series, ctx.prices, input.granularity);
  return { blocks: input.blocks.map((b) => ({ b, block: owned(buildBlock(sb, b, input.order)) })) };
}

/** The block with every buffer on its own memory (a Buffer from a pool slab would cross as the whole slab). */
function owned(block: Block): Block {
  const copy = <T extends Uint8Array | Uint32Array>(a: T): T => {
    const out = new (a.constructor as new (n: number) => T)(a.length);
    out.set(a as never);
    return out;
  };
  const buf = (b: Uint8Array) => Buffer.from(copy(b).buffer);
  return {
    buf: buf(block.buf),
    offsets: copy(block.offsets),
    ...(block.crc ? { crc: copy(block.crc) } : {}),
    ...(block.crcBare ? { crcBare: copy(block.crcBare) } : {}),
    ...(block.shiftToEnd ? { shiftToEnd: copy(block.shiftToEnd) } : {}),
    ...(block.shiftToBare ? { shiftToBare: copy(block.shiftToBare) } : {}),
    ...(block.small ? { small: { bytes: buf(block.small.bytes), at: copy(block.small.at) } } : {}),
    ...(block.large ? { large: { bytes: buf(block.large.bytes), at: copy(block.large.at) } } : {}),
  };
}

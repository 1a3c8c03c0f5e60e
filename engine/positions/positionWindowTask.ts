// A window of one position's history (DESIGN §4.4, §4.8) as a compute-pool task: the wallet's
// rows replayed up to each instant and valued there, serialized, and deflated for gzip answers
// — the dearest read of the API, so it runs on a worker, never on the serving thread (one key
// asking for 10,000 hourly points held that thread 110–295 ms a request). The task carries
// views of shared memory (event columns, the position's row index, the vault's series and
// prices) and the instants; the same pure function runs in-thread for tests and small worlds.
import { constants as zlibConstants, deflateRawSync } from 'node:zlib';
import { crc32 } from '../../common/crc32.js';
import { contextOf, eventTableOf, type PositionsInput, type VaultInput } from './positionItems.js';
import { type PointOptions, positionPoints } from './positionTimeseries.js';

export interface PositionWindowInput {
  kind: 'positionWindow';
  events: PositionsInput['events'];
  /** the wallet index's row order, and the position's rows [from, to) in it */
  rows: Int32Array;
  from: number;
  to: number;
  vault: VaultInput;
  /** the window's instants, ascending */
  instants: Float64Array;
  /** answer newest first */
  desc: boolean;
  /** also deflate the points (a gzip answer) */
  deflate: boolean;
  /** opt-in detail (DESIGN §11.3, §11.4); absent: the plain points */
  options?: PointOptions;
}

export interface PositionWindowOutput {
  /** the points' JSON joined by commas (no brackets), in the answer's order */
  json: Uint8Array;
  count: number;
  /** the same bytes as a raw deflate stream ended by a sync flush (byte-aligned, not final), with their CRC-32 and length */
  deflated: { bytes: Uint8Array; crc: number; length: number } | null;
}

export function computePositionWindow(input: PositionWindowInput): PositionWindowOutput {
  const ctx = contextOf(input.vault);
  if (!ctx) return { json: new Uint8Array(0), count: 0, deflated: null };
  const table = eventTableOf(input.events);
  const points = positionPoints({ table, idx: input.rows, from: input.from, to: input.to }, ctx, Array.from(input.instants), input.options);
  if (input.desc) points.reverse();
  let text = '';
  for (let k = 0; k < points.length; k++) text += k === 0 ? JSON.stringify(points[k]) : `,${JSON.stringify(points[k])}`;
  const json = own(Buffer.from(text));
  const deflated =
    input.deflate && json.length > 0
      ? { bytes: own(deflateRawSync(json, { level: 6, finishFlush: zlibConstants.Z_SYNC_FLUSH })), crc: crc32(json), length: json.length }
      : null;
  return { json, count: points.length, deflated };
}

/** A copy on its own ArrayBuffer, so a worker can hand it back without copying a pool slab or a zlib chunk. */
function own(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new ArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

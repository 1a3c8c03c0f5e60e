// The merge's side of a sharded recompute (issue #39): the shards' results put into a world
// loaded from the same raw data, as an unsharded publish would have computed them — each
// vault's unit-price columns, and the position items laid out in the wallet index's order
// (engine/positions/positionItems.ts mergePositions). Anything not covered exactly once, or
// naming another world's wallet or vault, is refused.
import { VaultdError } from '../../common/errors.js';
import type { World } from '../../model/world.js';
import type { ShardPositionRow, ShardSeriesRow } from '../../store/parquetFiles.js';
import { mergePositions, type PositionsOutput } from '../positions/positionItems.js';

/** One shard's results, read back from its files. */
export interface ShardRows {
  shard: number;
  series: ShardSeriesRow[];
  positions: ShardPositionRow[];
}

const mismatch = (what: string) =>
  new VaultdError('SHARDS_INVALID', `${what}; the shards do not fit this database: run every shard again on the same raw data, then merge`);

export function applyShards(world: World, shards: readonly ShardRows[]): void {
  const seen = new Map<string, number>();
  for (const sh of shards) {
    for (const r of sh.series) {
      const s = world.series.get(r.vault_id);
      if (!s) throw mismatch(`shard ${sh.shard} has vault "${r.vault_id}", which the database does not`);
      if (seen.has(r.vault_id)) throw mismatch(`vault "${r.vault_id}" is in shard ${seen.get(r.vault_id)} and in shard ${sh.shard}`);
      if (r.length !== s.length || r.unit_price_f.length !== s.length * 8 || r.unit_price.length !== s.length * 16) {
        throw mismatch(`shard ${sh.shard} has ${r.length} hours of vault "${r.vault_id}", the database ${s.length}`);
      }
      seen.set(r.vault_id, sh.shard);
      new Uint8Array(s.unit_price_f.buffer, s.unit_price_f.byteOffset, s.length * 8).set(r.unit_price_f);
      new Uint8Array(s.unit_price.words.buffer, s.unit_price.words.byteOffset, s.length * 16).set(r.unit_price);
    }
  }
  for (const id of world.series.keys()) if (!seen.has(id)) throw mismatch(`no shard has vault "${id}"`);

  const x = world.walletIndex;
  const wallets = world.events.dict.wallets.values;
  const vaultIds = world.events.dict.vaults.values;
  const owner = new Int32Array(x.positions).fill(-1);
  const outputs: PositionsOutput[] = shards.map((sh) => {
    const n = sh.positions.length;
    const list = new Int32Array(n);
    const offsets = new Int32Array(n + 1);
    const flags = new Uint8Array(n);
    const returnsOffsets = new Int32Array(n + 1);
    let bytes = 0;
    let returnsBytes = 0;
    const withReturns = sh.positions.every((r) => r.returns !== null);
    const skipped: PositionsOutput['skipped'] = [];
    sh.positions.forEach((r, j) => {
      const p = r.position;
      if (!(p >= 0 && p < x.positions) || wallets[x.posWallet[p]!] !== r.wallet || vaultIds[x.posVault[p]!] !== r.vault_id) {
        throw mismatch(`shard ${sh.shard}'s position ${p} (${r.wallet} in "${r.vault_id}") is not that position in the database`);
      }
      if (owner[p]! >= 0) throw mismatch(`position ${p} (${r.wallet} in "${r.vault_id}") is in shard ${owner[p]} and in shard ${sh.shard}`);
      owner[p] = sh.shard;
      list[j] = p;
      flags[j] = r.flags;
      offsets[j] = bytes;
      bytes += r.item.length;
      returnsOffsets[j] = returnsBytes;
      returnsBytes += r.returns?.length ?? 0;
      if (r.skipped_rows !== null) skipped.push([p, { rows: r.skipped_rows, message: r.skipped_message ?? '' }]);
    });
    offsets[n] = bytes;
    returnsOffsets[n] = returnsBytes;
    const json = new Uint8Array(bytes);
    const returnsJson = new Uint8Array(returnsBytes);
    sh.positions.forEach((r, j) => {
      json.set(r.item, offsets[j]!);
      if (r.returns) returnsJson.set(r.returns, returnsOffsets[j]!);
    });
    return { list, json, offsets, flags, skipped, returns: withReturns ? { json: returnsJson, offsets: returnsOffsets } : null, rows: null };
  });
  const missing = owner.indexOf(-1);
  if (missing >= 0) throw mismatch(`no shard has position ${missing} (${wallets[x.posWallet[missing]!]} in "${vaultIds[x.posVault[missing]!]}")`);
  world.positionItems = mergePositions(x.positions, outputs);
}

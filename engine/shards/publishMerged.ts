// The merge's publish (issue #39): the world loaded from the database as `vaultd publish` loads
// it, the shards' results put into it (applyShards.ts) instead of computed, and the snapshot
// directory written under the database's publish identity, keys and cursor secret — the
// same files `vaultd publish` writes.
import type { Common } from '../../common/common.js';
import { activeKeyDigests } from '../../store/apiKeys.js';
import { cursorSecret } from '../../store/cursorSecret.js';
import { readShardPositions, readShardSeries } from '../../store/parquetFiles.js';
import { readPublishIdentity } from '../../store/publishIdentity.js';
import type { Store } from '../../store/store.js';
import { publishPlan } from '../engine.js';
import { loadWorld } from '../load/loadWorld.js';
import { writeSnapshotDir, type SnapshotManifest } from '../publish/snapshotFiles.js';
import { frozenView } from '../publish/walletIndex.js';
import { applyShards, type ShardRows } from './applyShards.js';

export async function publishMerged(
  common: Common,
  store: Store,
  shards: readonly { shard: number; series: string; positions: string }[],
  out: string,
  clock: () => number = () => Math.floor(Date.now() / 1000),
): Promise<SnapshotManifest> {
  const world = await loadWorld(common, store, { eventHashes: true, apy: false, signal: common.shutdown.signal });
  const rows: ShardRows[] = [];
  for (const s of shards)
    rows.push({ shard: s.shard, series: await readShardSeries(store, s.series), positions: await readShardPositions(store, s.positions) });
  applyShards(world, rows);
  const at = await publishPlan(store, true, 0, clock);
  const identity = await readPublishIdentity(store);
  const secret = (await cursorSecret(store)).toString('base64url');
  const keys = await activeKeyDigests(store);
  return writeSnapshotDir(
    out,
    frozenView(world),
    { generation: at.generation, refreshed_at_s: at.now, stamp: identity?.stamp ?? null },
    { cursor_secret: secret, keys },
  );
}

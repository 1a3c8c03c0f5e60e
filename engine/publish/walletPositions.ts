// A wallet's positions page and one position, over any position source (the items of a publish,
// or of a view of the past): shared by the read model and the views of the past it hands out.
import type { PartialError } from '../aggregates/tvl.js';
import type { World } from '../../model/world.js';
import { ENABLED, HIDDEN, OPEN, SKIPPED, VALUED } from '../positions/positionItems.js';
import type { PositionSource } from './positionSource.js';
import { walletOf } from './walletIndex.js';

/** The wallet's position in an enabled vault (its index and rows), or null. */
export function findPosition(world: World, src: PositionSource, wallet: string, vaultId: string) {
  const x = world.walletIndex;
  const w = walletOf(world, wallet);
  const v = world.events.dict.vaults.find(vaultId);
  if (w >= 0 && v >= 0) {
    for (let k = x.walletPosStart[w]!; k < x.walletPosStart[w + 1]!; k++) {
      const p = x.walletPos[k]!;
      if (x.posVault[p] === v && src.flags(p) & ENABLED) return { p, rows: { table: world.events, idx: x.rows, from: x.rowStart[p]!, to: src.rowsEnd(p) } };
    }
  }
  return null;
}

/** The positions of a positions page (DESIGN §5.2: cursor over position_id), its next key and partial errors. */
export function positionsPage(
  world: World,
  src: PositionSource,
  wallet: string,
  { includeHidden, after, limit }: { includeHidden: boolean; after: number; limit: number },
) {
  const x = world.walletIndex;
  const vaultIds = world.events.dict.vaults.values;
  const w = walletOf(world, wallet);
  const partialErrors: PartialError[] = [];
  const list: number[] = [];
  let lastId: number | undefined;
  let more = false;
  const end = w < 0 ? 0 : x.walletPosStart[w + 1]!;
  for (let k = w < 0 ? 0 : x.walletPosStart[w]!; k < end; k++) {
    const p = x.walletPos[k]!;
    const f = src.flags(p);
    if (p + 1 <= after || !(f & ENABLED)) continue;
    if (!includeHidden && f & HIDDEN) continue;
    if (!(f & VALUED)) {
      partialErrors.push({
        code: 'POSITION_NOT_VALUED',
        message: 'the vault has no snapshot yet, so the position cannot be valued',
        resource_id: vaultIds[x.posVault[p]!]!,
      });
      continue;
    }
    if (!(f & OPEN)) continue;
    if (list.length === limit) {
      more = true;
      break;
    }
    if (f & SKIPPED) partialErrors.push({ code: 'CORRUPT_ROWS_SKIPPED', message: src.skipped(p)!, resource_id: vaultIds[x.posVault[p]!]! });
    list.push(p);
    lastId = p + 1;
  }
  return { list, nextKey: more && lastId !== undefined ? lastId : null, partialErrors };
}

const COMMA = Buffer.from(',');

/** The positions route's items (ReadModel.positions). */
export function positionsAnswer(world: World, src: PositionSource, wallet: string, q: { includeHidden: boolean; after: number; limit: number }) {
  const page = positionsPage(world, src, wallet, q);
  const parts: Buffer[] = [];
  const joined = page.list.length > 1 ? (src.listBytes?.(page.list) ?? null) : null;
  if (joined) parts.push(joined);
  else {
    for (const p of page.list) {
      if (parts.length > 0) parts.push(COMMA);
      parts.push(src.bytes(p));
    }
  }
  return { parts, count: page.list.length, nextKey: page.nextKey, partialErrors: page.partialErrors };
}

/** The item JSON of the wallet's open position, or why there is none (ReadModel.position). */
export function positionAnswer(world: World, src: PositionSource, wallet: string, vaultId: string): Buffer | { missing: string } {
  const found = findPosition(world, src, wallet, vaultId);
  if (!found) return { missing: `wallet ${wallet} has no position in vault "${vaultId}"` };
  const f = src.flags(found.p);
  if (!(f & VALUED) || !(f & OPEN)) return { missing: `wallet ${wallet} has no open position in vault "${vaultId}" (fully exited positions are not served)` };
  return src.bytes(found.p);
}

// Everything one block range commits, built from its logs: headers (timestamps, hashes checked
// against the logs'), decoded events → rows (with the stored requests their settlements need),
// the hourly snapshots the range newly covers, block hashes for reorg detection, checkpoints.
import type { Logger } from '../../common/logger.js';
import { VaultdError } from '../../common/errors.js';
import type { IndexedVault } from './addressBook.js';
import type { ChainRuntime } from './chainRuntime.js';
import { vaultStream, type RangeCommit } from './chainStore.js';
import type { RawLog } from '../evm/chainRpc.js';
import { decodeChainLog, type DecodedLog } from './decodeLog.js';
import { requestLookups, toEventRows, type RequestRecord } from './eventRows.js';
import { ceilHour, readHourlySnapshots, type SnapshotTarget } from './hourlySnapshots.js';
import type { BadDataReason } from './ingestMetrics.js';

export interface RangeInput {
  rt: ChainRuntime;
  from: number;
  to: number;
  logs: readonly RawLog[];
  /** per vault_id: the last block already committed (start_block − 1 when none) */
  cps: ReadonlyMap<string, number>;
  /** hashes of blocks at or above this are stored for reorg detection */
  keepHashesFrom: number;
  pruneBelow: number;
  /** stored requests by key, for the settlements of this range (read under the store lock) */
  loadRequests: (keys: { provisioner: string; hash: string }[]) => Promise<Map<string, RequestRecord>>;
  onBadData: (reason: BadDataReason, detail: string, where: { block: number; log_index?: number }) => void;
  logger: Logger;
}

export interface BuiltRange {
  commit: RangeCommit;
  snapshotReads: number;
  /** ms spent on headers, decoding and rows, snapshot reads */
  timings: { headers: number; rows: number; snapshots: number };
  /** vaults this range advanced */
  advanced: IndexedVault[];
}

export async function buildRange(input: RangeInput): Promise<BuiltRange> {
  const { rt, from, to, cps } = input;
  const { book, clock } = rt;
  const chainId = rt.chain.chain_id;
  const c = from - 1;
  const advanced = book.vaults.filter((v) => cps.get(v.vault_id)! < to);
  const cpOf = (vaultIdOrUndefined: string | undefined) => (vaultIdOrUndefined === undefined ? -1 : (cps.get(vaultIdOrUndefined) ?? -1));

  // headers: every block with logs, the range end, the checkpoint below it, each advanced vault's start and checkpoint
  const needed = new Set<number>(input.logs.map((l) => l.blockNumber));
  needed.add(to);
  if (c >= 0) needed.add(c);
  for (const v of advanced) {
    needed.add(v.start_block);
    const cp = cps.get(v.vault_id)!;
    if (cp >= 0) needed.add(cp);
  }
  for (let n = Math.max(from, input.keepHashesFrom); n <= to; n++) needed.add(n);
  let t0 = performance.now();
  await clock.prefetch(needed);
  const timings = { headers: Math.round(performance.now() - t0), rows: 0, snapshots: 0 };
  t0 = performance.now();
  for (const l of input.logs) {
    if (clock.cached(l.blockNumber)!.hash !== l.blockHash) {
      // the node served logs and headers from two forks: the range is re-fetched
      throw new VaultdError('SOURCE_FAILED', `block ${l.blockNumber}: log hash ${l.blockHash} differs from header hash ${clock.cached(l.blockNumber)!.hash}`, {
        retryable: true,
        details: { kind: 'server', refetch: true },
      });
    }
  }

  // decode, dropping logs of vaults that already hold this block (a vault added later re-scans)
  const decoded: DecodedLog[] = [];
  for (const log of input.logs) {
    const owner = book.ownerOf(log.address);
    if (owner && log.blockNumber <= cpOf(owner.vault_id)) continue;
    const r = decodeChainLog(log, book.emitterOf(log.address));
    if (r.ok) decoded.push(r.decoded);
    else input.onBadData(r.reason, r.detail, { block: log.blockNumber, log_index: log.logIndex });
  }
  const stored = await input.loadRequests(requestLookups(decoded));
  const built = toEventRows({ chainId, book, decoded, ts: (b) => clock.cached(b)!.timestamp, stored });
  for (const i of built.issues) input.onBadData(i.reason, i.detail, { block: i.block_number, log_index: i.log_index });
  const events = built.rows.filter((r) => r.block_number > cpOf(r.vault_id));
  const requests = built.requests.filter((r) => r.block_number > cpOf(r.vault_id));

  timings.rows = Math.round(performance.now() - t0);
  t0 = performance.now();
  // hourly snapshots newly covered for each advanced vault
  const targets: SnapshotTarget[] = advanced.map((v) => {
    const cp = cps.get(v.vault_id)!;
    const afterTs = cp >= v.start_block && cp >= 0 ? clock.cached(cp)!.timestamp : Number.NEGATIVE_INFINITY;
    return { vault: v, afterTs, firstHour: ceilHour(clock.cached(v.start_block)!.timestamp) };
  });
  const snaps = await readHourlySnapshots({ clock, reader: rt.reader, targets, lo: Math.max(c, Math.min(...advanced.map((v) => v.start_block))), hi: to });
  timings.snapshots = Math.round(performance.now() - t0);
  for (const f of snaps.failures) input.onBadData('snapshot_read_failed', `${f.vault_id} at ${f.ts}: ${f.error}`, { block: f.block });

  const hashes: RangeCommit['hashes'][number][] = [];
  for (let n = Math.max(from, input.keepHashesFrom); n <= to; n++) {
    const h = clock.cached(n)!;
    hashes.push({ block: n, hash: h.hash, ts: h.timestamp });
  }
  if (hashes.length === 0 || hashes[hashes.length - 1]!.block !== to) {
    const h = clock.cached(to)!;
    hashes.push({ block: to, hash: h.hash, ts: h.timestamp });
  }
  const toHash = clock.cached(to)!.hash;
  return {
    commit: {
      chainId,
      events,
      snapshots: snaps.rows,
      requests,
      hashes,
      checkpoints: advanced.map((v) => ({ stream: vaultStream(v.address), block: to, hash: toHash })),
      pruneBelow: input.pruneBelow,
    },
    snapshotReads: snaps.reads,
    timings,
    advanced,
  };
}

// One ingest round of one chain (DESIGN §6.1, §9): check the chain id, roll back past a reorg,
// then from the per-vault checkpoints to head − finality_blocks, range after range: fetch logs
// (adaptive span), build rows and snapshots, and commit each range with its checkpoints in one
// transaction. A failure ends the round as `stalled`; committed ranges stay committed.
import type { Common } from '../../common/common.js';
import { VaultdError, describeError } from '../../common/errors.js';
import type { Store } from '../../store/store.js';
import { buildRange } from './buildRange.js';
import type { ChainRuntime } from './chainRuntime.js';
import {
  commitRange,
  loadCheckpoints,
  loadRecentHashes,
  loadRequests,
  readIngestStatus,
  reconcileStartBlocks,
  rollbackAfter,
  vaultStream,
  writeIngestStatus,
} from './chainStore.js';
import { detectReorg } from './detectReorg.js';
import { prepareChain } from './prepareChain.js';
import { classifyRpcError } from '../evm/rpcErrors.js';
import { fetchRangeLogs } from '../evm/fetchRangeLogs.js';
import { ingestMetrics, type BadDataReason } from './ingestMetrics.js';
import type { IngestOptions } from './ingestOptions.js';
import type { Mutex } from '../../common/mutex.js';

export interface ChainRoundResult {
  chain_id: number;
  /** first and last block committed this round; null when nothing was due */
  from: number | null;
  to: number | null;
  /** head − finality_blocks at the start of the round */
  target: number | null;
  /** the head read at the start of the round (null when it could not be read) */
  head: number | null;
  /** the block every vault was indexed to when the round began (its lowest checkpoint) */
  indexed_to: number | null;
  logs: number;
  events: number;
  snapshots: number;
  snapshot_reads: number;
  ranges: number;
  bad_data: number;
  reorg: { ancestor: number; orphaned_from: number; events_removed: number; snapshots_removed: number } | null;
  status: 'ok' | 'stalled';
  error?: string;
  ms: number;
}

export interface ChainRoundContext {
  common: Common;
  store: Store;
  lock: Mutex;
  rt: ChainRuntime;
  options: IngestOptions;
  /** the stop: the round ends between ranges, like a spent budget */
  signal?: AbortSignal;
}

export async function ingestChainRound(ctx: ChainRoundContext): Promise<ChainRoundResult> {
  const { common, store, lock, rt, options } = ctx;
  const chainId = rt.chain.chain_id;
  const label = String(chainId);
  const metrics = ingestMetrics(common);
  const logger = common.logger.child({ component: 'ingest', chain_id: chainId });
  const started = performance.now();
  const result: ChainRoundResult = {
    chain_id: chainId,
    from: null,
    to: null,
    target: null,
    head: null,
    indexed_to: null,
    logs: 0,
    events: 0,
    snapshots: 0,
    snapshot_reads: 0,
    ranges: 0,
    bad_data: 0,
    reorg: null,
    status: 'ok',
    ms: 0,
  };
  let head: number | null = null;
  try {
    if (!rt.verified) {
      await rt.rpc.verifyChainId();
      rt.verified = true;
    }
    head = await rt.rpc.blockNumber();
    result.head = head;
    await prepareChain({ store, lock, rt, head, logger });
    const finality = rt.chain.finality_blocks;
    const target = head - finality;
    result.target = target;

    // reorgs: compare the stored window with the chain, roll back past the fork point
    const stored = await lock.run(() => loadRecentHashes(store, chainId, Number.MAX_SAFE_INTEGER, finality + options.hashWindow));
    const fork = await detectReorg(rt.rpc, stored);
    if (fork) {
      const removed = await lock.run(() => rollbackAfter(store, chainId, fork.ancestor));
      rt.clock.forgetAbove(fork.ancestor.block);
      metrics.reorgs.inc({ chain: label });
      result.reorg = { ancestor: fork.ancestor.block, orphaned_from: fork.orphanedFrom, events_removed: removed.events, snapshots_removed: removed.snapshots };
      logger[fork.deeperThanWindow ? 'error' : 'warn']({ ...result.reorg, deeper_than_window: fork.deeperThanWindow }, 'reorg rolled back');
    }

    const stored2 = await lock.run(() => loadCheckpoints(store, chainId));
    const rewound = await lock.run(() => reconcileStartBlocks(store, chainId, rt.book.vaults, stored2));
    if (rewound.length > 0) logger.warn({ vaults: rewound }, 'start_block moved earlier: backfilling from the new start');
    const cps = new Map<string, number>();
    for (const v of rt.book.vaults) cps.set(v.vault_id, stored2.get(vaultStream(v.address))?.block ?? v.start_block - 1);
    if (cps.size > 0) result.indexed_to = Math.min(...cps.values());

    const onBadData = (reason: BadDataReason, detail: string, where: { block: number; log_index?: number }) => {
      result.bad_data++;
      metrics.badData.inc({ chain: label, reason });
      logger.warn({ reason, detail, ...where }, 'bad data skipped');
    };

    for (;;) {
      const lagging = rt.book.vaults.filter((v) => cps.get(v.vault_id)! < target);
      if (lagging.length === 0) break;
      if (performance.now() - started > options.roundBudgetMs) {
        logger.info({ budget_ms: options.roundBudgetMs, at: result.to }, 'round budget spent; the next round resumes');
        break;
      }
      if (ctx.signal?.aborted) {
        logger.info({ at: result.to }, 'stop requested; the next round resumes');
        break;
      }
      const c = Math.min(...lagging.map((v) => cps.get(v.vault_id)!));
      const from = c + 1;
      const rangeStarted = performance.now();
      let built: Awaited<ReturnType<typeof buildRange>> | undefined;
      let fetched: Awaited<ReturnType<typeof fetchRangeLogs>> | undefined;
      let fetchMs = 0;
      for (let attempt = 1; ; attempt++) {
        // the vaults still behind the end of the range decide the address list
        const maxTo = Math.min(target, from + rt.sizer.size - 1);
        const addresses = rt.book.addressesOf(lagging.filter((v) => cps.get(v.vault_id)! < maxTo));
        const fetchStarted = performance.now();
        fetched = await fetchRangeLogs(rt.rpc, rt.sizer, from, target, addresses);
        fetchMs = Math.round(performance.now() - fetchStarted);
        try {
          built = await buildRange({
            rt,
            from: fetched.from,
            to: fetched.to,
            logs: fetched.logs,
            cps,
            keepHashesFrom: target - options.hashWindow,
            pruneBelow: fetched.to - finality - options.hashWindow,
            loadRequests: (keys) => lock.run(() => loadRequests(store, chainId, keys)),
            onBadData,
            logger,
          });
          break;
        } catch (err) {
          const refetch = err instanceof VaultdError && (err.details as { refetch?: boolean } | undefined)?.refetch === true;
          if (!refetch || attempt >= options.maxRangeRefetch) throw err;
          rt.clock.forgetAbove(from - 1);
          logger.warn({ from, error: err.message }, 'logs and headers disagree; re-fetching the range');
        }
      }
      logger.debug({ from: fetched.from, to: fetched.to, events: built.commit.events.length, snapshots: built.commit.snapshots.length }, 'committing range');
      const commitStarted = performance.now();
      const added = await lock.run(() => commitRange(store, built.commit));
      const commitMs = Math.round(performance.now() - commitStarted);
      for (const v of built.advanced) cps.set(v.vault_id, fetched.to);

      result.from ??= fetched.from;
      result.to = fetched.to;
      result.logs += fetched.logs.length;
      result.events += added.events;
      result.snapshots += added.snapshots;
      result.snapshot_reads += built.snapshotReads;
      result.ranges++;
      metrics.logs.inc({ chain: label }, fetched.logs.length);
      metrics.events.inc({ chain: label }, added.events);
      metrics.snapshots.inc({ chain: label }, added.snapshots);
      metrics.ranges.inc({ chain: label });
      metrics.checkpoint.set({ chain: label }, fetched.to);
      logger.info(
        {
          from: fetched.from,
          to: fetched.to,
          target,
          logs: fetched.logs.length,
          events: added.events,
          snapshots: added.snapshots,
          span: rt.sizer.size,
          ms: Math.round(performance.now() - rangeStarted),
          phases_ms: { logs: fetchMs, ...built.timings, commit: commitMs },
        },
        'range committed',
      );
    }
    rt.consecutiveFailures = 0;
  } catch (err) {
    rt.consecutiveFailures++;
    result.status = 'stalled';
    // a viem error's message carries the request and URL (which may hold an API key): only the provider's words
    result.error = err instanceof VaultdError ? describeError(err) : classifyRpcError(err).message;
    logger.error({ error: result.error, consecutive_failures: rt.consecutiveFailures, committed_to: result.to }, 'chain round failed');
  }
  result.ms = Math.round(performance.now() - started);
  metrics.rounds.inc({ chain: label, status: result.status });
  metrics.stalled.set({ chain: label }, result.status === 'stalled' ? 1 : 0);
  await recordStatus(ctx, result, head).catch((err) => logger.error({ error: describeError(err) }, 'ingest status not recorded'));
  return result;
}

/** The per-chain status row: failures accumulate across processes, so a chain that keeps failing shows as stalled. */
async function recordStatus(ctx: ChainRoundContext, r: ChainRoundResult, head: number | null): Promise<void> {
  const { store, lock, rt } = ctx;
  const chainId = rt.chain.chain_id;
  await lock.run(async () => {
    const [prev] = await readIngestStatus(store, chainId);
    const cps = await loadCheckpoints(store, chainId);
    const blocks = rt.book.vaults.map((v) => cps.get(vaultStream(v.address))?.block).filter((b): b is number => b !== undefined);
    const checkpoint = blocks.length > 0 ? Math.min(...blocks) : null;
    const ts = checkpoint === null ? null : (rt.clock.cached(checkpoint)?.timestamp ?? prev?.checkpoint_ts ?? null);
    await writeIngestStatus(store, {
      chain_id: chainId,
      status: r.status,
      consecutive_failures: r.status === 'ok' ? 0 : (prev?.consecutive_failures ?? 0) + 1,
      last_error: r.error ?? null,
      head_block: head ?? prev?.head_block ?? null,
      checkpoint_block: checkpoint,
      checkpoint_ts: ts,
    });
  });
}

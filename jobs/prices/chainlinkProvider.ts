// USD prices from Chainlink-style aggregators (AggregatorV3 reads and `AnswerUpdated` logs),
// over the same JSON-RPC client as the chain indexer (DESIGN §6.3). Per feed: scan the
// AnswerUpdated logs from the stored block to head − finality_blocks in adaptive ranges, and
// write one row per hour H: the newest answer with updatedAt ≤ H, scaled by the feed's
// decimals exactly, unless it is older than `max_age_seconds`. Rows and the feed's state (block,
// hash, newest answer, newest hour) commit in one transaction. The round ends by checking the
// state against `latestRoundData` at the scanned block; a mismatch (a log the RPC dropped) or a
// reorg under the stored block rescans the feed from its start.
import { BaseError, ContractFunctionZeroDataError, decodeEventLog, parseAbi, toEventSelector, type Hex } from 'viem';
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { formatUnits } from '../../model/format/numbers.js';
import type { PriceRow } from '../../model/rows.js';
import { deletePriceRows } from '../../store/prices.js';
import { deleteFeedState, readFeedState, saveFeedState, type FeedState } from '../../store/priceFeeds.js';
import type { Store } from '../../store/store.js';
import { createChainRpc, type ChainRpc, type ChainRpcOptions } from '../evm/chainRpc.js';
import { fetchRangeLogs } from '../evm/fetchRangeLogs.js';
import { historyFromBlock } from '../evm/historyFromBlock.js';
import { resolveDeployBlock } from '../evm/resolveDeployBlock.js';
import { createRangeSizer } from '../evm/rangeSizer.js';
import { classifyRpcError } from '../evm/rpcErrors.js';
import { HOUR, hourFloor, type PriceProvider, type PriceProviderConfig, type PriceRoundContext } from './priceProvider.js';

export const aggregatorAbi = parseAbi([
  'event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)',
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

type ChainlinkConfig = Extract<PriceProviderConfig, { kind: 'chainlink' }>;
type ChainConfig = Config['chains'][number];

export type { FeedState } from '../../store/priceFeeds.js';

export interface AnswerUpdate {
  answer: bigint;
  updatedAt: number;
}

/**
 * The hourly rows for hours in (state.last_hour, endHour], given the updates of the range in
 * chain order. Pure; returns the rows and the state after the updates.
 */
export function hourlyAnswers(
  state: Pick<FeedState, 'answer' | 'answer_updated_at' | 'last_hour' | 'decimals'>,
  updates: readonly AnswerUpdate[],
  endHour: number,
  maxAge: number,
): { rows: { ts: number; usd: string }[]; answer: bigint | null; updatedAt: number | null; lastHour: number } {
  const rows: { ts: number; usd: string }[] = [];
  let answer = state.answer;
  let updatedAt = state.answer_updated_at;
  let i = 0;
  for (let h = state.last_hour + HOUR; h <= endHour; h += HOUR) {
    while (i < updates.length && updates[i]!.updatedAt <= h) {
      answer = updates[i]!.answer;
      updatedAt = updates[i]!.updatedAt;
      i++;
    }
    // Chainlink answers ≤ 0 mean "no valid price"; stale answers are no price either (DESIGN §4.1)
    if (answer !== null && answer > 0n && updatedAt !== null && h - updatedAt <= maxAge) {
      rows.push({ ts: h, usd: formatUnits(answer, state.decimals) });
    }
  }
  for (; i < updates.length; i++) {
    answer = updates[i]!.answer;
    updatedAt = updates[i]!.updatedAt;
  }
  return { rows, answer, updatedAt, lastHour: Math.max(state.last_hour, endHour) };
}

export interface ChainlinkProviderOptions {
  rpc?: ChainRpcOptions;
  /** first eth_getLogs span */
  initialRange?: number;
  maxRange?: number;
}

export function createChainlinkProvider(
  common: Common,
  cfg: ChainlinkConfig,
  chain: ChainConfig,
  configuredStart: number | null,
  opts: ChainlinkProviderOptions = {},
): PriceProvider {
  const rpc = createChainRpc(common, chain, opts.rpc);
  const sizer = createRangeSizer({
    initial: Math.min(opts.initialRange ?? 5_000, rpc.maxBlockRange),
    max: Math.min(opts.maxRange ?? 100_000, rpc.maxBlockRange),
  });
  const name = `chainlink:${cfg.chain_id}`;
  const topic = toEventSelector(aggregatorAbi[0]);
  let resolvedStart: number | null = null;

  /** The configured start, else the earliest aggregator deployment; never before `history_from`. */
  async function firstBlock(ctx: PriceRoundContext, head: number): Promise<number> {
    if (resolvedStart !== null) return resolvedStart;
    const from = await historyFromBlock(rpc, chain.history_from, head);
    if (configuredStart !== null) return (resolvedStart = Math.max(configuredStart, from));
    const deploy = { withStore: ctx.read, rpc, chainId: cfg.chain_id, logger: ctx.logger };
    let first = head;
    for (const f of cfg.feeds) first = Math.min(first, await resolveDeployBlock(deploy, f.aggregator.toLowerCase(), from, head));
    return (resolvedStart = first);
  }

  return {
    name,
    async round(ctx) {
      const head = await rpc.blockNumber();
      const startBlock = await firstBlock(ctx, head);
      const target = head - chain.finality_blocks;
      let rows = 0;
      let oldest: number | null = null;
      let priced = 0;
      if (target < startBlock) return { rows, tokens: 0, oldest };
      for (const feed of cfg.feeds) {
        const aggregator = feed.aggregator.toLowerCase();
        const token = feed.token.toLowerCase();
        const tokenChain = feed.token_chain_id ?? cfg.chain_id;
        let state = await ctx.read((s) => loadFeedState(s, cfg.chain_id, aggregator));
        if (state && (state.token !== token || state.token_chain_id !== tokenChain)) {
          ctx.logger.warn({ aggregator, token }, 'feed now prices another token: rescanning it');
          state = await resetFeed(ctx, state);
        }
        if (state && state.hash !== null && (state.block > target || (await rpc.header(state.block)).hash !== state.hash)) {
          ctx.logger.warn({ aggregator, block: state.block }, 'reorg under the feed checkpoint: rescanning the feed');
          state = await resetFeed(ctx, state);
        }
        state ??= await freshState(rpc, { chain_id: cfg.chain_id, aggregator, token, token_chain_id: tokenChain }, startBlock, target);
        if (!state) continue;

        while (state.block < target) {
          ctx.signal?.throwIfAborted();
          const fetched = await fetchRangeLogs(rpc, sizer, state.block + 1, target, [aggregator]);
          const updates = fetched.logs.filter((l) => l.topics[0] === topic).flatMap((l) => decodeUpdate(l, ctx));
          const end = await rpc.header(fetched.to);
          const next = hourlyAnswers(state, updates, hourFloor(end.timestamp), cfg.max_age_seconds);
          const after: FeedState = {
            ...state,
            block: fetched.to,
            hash: end.hash,
            answer: next.answer,
            answer_updated_at: next.updatedAt,
            last_hour: next.lastHour,
          };
          const priceRows: PriceRow[] = next.rows.map((r) => ({ chain_id: tokenChain, address: token, ts: r.ts, usd: r.usd, source: `${name}:${aggregator}` }));
          const added = await ctx.commit(priceRows, (s) => saveFeedState(s, after));
          ctx.logger.info({ aggregator, from: fetched.from, to: fetched.to, target, rows: added }, 'feed range committed');
          rows += added;
          if (added > 0) oldest = Math.min(oldest ?? Infinity, next.rows[0]!.ts);
          state = after;
        }
        await checkLatest(rpc, state, ctx, `${name}:${aggregator}`);
        if (state.answer !== null) priced++;
      }
      return { rows, tokens: priced, oldest };
    },
  };

  async function resetFeed(ctx: PriceRoundContext, state: FeedState): Promise<null> {
    await ctx.commit([], (s) => deleteFeed(s, state, `${name}:${state.aggregator}`));
    return null;
  }
}

function decodeUpdate(log: { topics: Hex[]; data: Hex; blockNumber: number; logIndex: number }, ctx: PriceRoundContext): AnswerUpdate[] {
  try {
    const d = decodeEventLog({ abi: aggregatorAbi, eventName: 'AnswerUpdated', topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true });
    return [{ answer: d.args.current, updatedAt: Number(d.args.updatedAt) }];
  } catch (err) {
    ctx.logger.warn({ block: log.blockNumber, log_index: log.logIndex, error: (err as Error).message.split('\n')[0] }, 'malformed AnswerUpdated skipped');
    return [];
  }
}

/** A feed seen for the first time: its decimals, and the answer already standing before `startBlock`. */
async function freshState(
  rpc: ChainRpc,
  id: Pick<FeedState, 'chain_id' | 'aggregator' | 'token' | 'token_chain_id'>,
  startBlock: number,
  target: number,
): Promise<FeedState | null> {
  if (target < startBlock) return null;
  const address = id.aggregator as Hex;
  const decimals = await rpc.retrying('eth_call', () =>
    rpc.client.readContract({ address, abi: aggregatorAbi, functionName: 'decimals', blockNumber: BigInt(target) }),
  );
  const standing = startBlock > 0 ? await latestRound(rpc, address, startBlock - 1) : null;
  const first = await rpc.header(startBlock);
  return {
    ...id,
    decimals: Number(decimals),
    block: startBlock - 1,
    hash: null,
    answer: standing?.answer ?? null,
    answer_updated_at: standing?.updatedAt ?? null,
    last_hour: hourFloor(first.timestamp) - HOUR,
  };
}

/** latestRoundData at `block`, or null where the feed has no round yet (it reverts) or no code yet. */
async function latestRound(rpc: ChainRpc, address: Hex, block: number): Promise<AnswerUpdate | null> {
  try {
    const r = await rpc.retrying('eth_call', () =>
      rpc.client.readContract({ address, abi: aggregatorAbi, functionName: 'latestRoundData', blockNumber: BigInt(block) }),
    );
    return { answer: r[1], updatedAt: Number(r[3]) };
  } catch (err) {
    const notDeployed = err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionZeroDataError) !== null;
    if (notDeployed || classifyRpcError(err).kind === 'reverted') return null;
    throw err;
  }
}

/** The scanned state must agree with the chain's own latest round at the scanned block. */
async function checkLatest(rpc: ChainRpc, state: FeedState, ctx: PriceRoundContext, source: string): Promise<void> {
  const latest = await latestRound(rpc, state.aggregator as Hex, state.block);
  const same = latest === null ? state.answer === null : latest.answer === state.answer && latest.updatedAt === state.answer_updated_at;
  if (same) return;
  await ctx.commit([], (s) => deleteFeed(s, state, source));
  throw new VaultdError(
    'SOURCE_FAILED',
    `feed ${state.aggregator} on chain ${state.chain_id}: latestRoundData at block ${state.block} (${String(latest?.answer)} @ ${String(latest?.updatedAt)}) disagrees with the AnswerUpdated logs scanned (${String(state.answer)} @ ${String(state.answer_updated_at)}); the feed is rescanned next round — if this repeats, the RPC drops logs`,
    { retryable: true },
  );
}

/** The feed's stored scan state, or null before its first round. */
export const loadFeedState = readFeedState;

/** Forget a feed's state and the rows it wrote, so the next round rescans it. */
async function deleteFeed(store: Store, s: Pick<FeedState, 'chain_id' | 'aggregator' | 'token_chain_id' | 'token'>, source: string): Promise<void> {
  await deleteFeedState(store, s.chain_id, s.aggregator);
  await deletePriceRows(store, s.token_chain_id, s.token, source);
}

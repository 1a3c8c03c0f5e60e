// Compile-time guard: the engine's API object types and the response schemas describe the same
// keys and value types (literal unions widened), so a field added or renamed on one side without
// the other fails `tsc`. Emits no code.
import type * as v from 'valibot';
import type { ActivityRow as EngineActivityRow } from '../../engine/publish/index.js';
import type { FeaturedCard as EngineFeaturedCard, StrategyCard as EngineStrategyCard } from '../../engine/publish/index.js';
import type { PartialError, TvlBreakdownRow as EngineTvlBreakdownRow, TvlData, TvlRow as EngineTvlRow } from '../../engine/publish/index.js';
import type { VaultDetail as EngineVaultDetail } from '../../engine/publish/index.js';
import type { VaultMetrics as EngineVaultMetrics, VaultTimeseriesPoint as EngineVaultTimeseriesPoint } from '../../engine/publish/index.js';
import type { PositionMetrics as EnginePositionMetrics } from '../../engine/publish/index.js';
import type { PositionPoint } from '../../engine/publish/index.js';
import type { LatestPrice } from '../../engine/publish/index.js';
import type { COMPONENTS } from './responses.js';

/** Literal unions widened to their primitive, recursively (a picklist is "a string" here). */
type Loose<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends null | undefined
        ? T
        : T extends readonly (infer U)[]
          ? Loose<U>[]
          : T extends object
            ? { [K in keyof T]: Loose<T[K]> }
            : T;

type Same<A, B> = [Loose<A>] extends [Loose<B>] ? ([Loose<B>] extends [Loose<A>] ? true : false) : false;
type Out<K extends keyof typeof COMPONENTS> = v.InferOutput<(typeof COMPONENTS)[K]>;

/** The published TVL: `breakdown` is stripped unless asked for (engine/publish/buildSnapshot.ts). */
type PublishedTvl = Omit<TvlData, 'breakdown'> & { breakdown?: TvlData['breakdown'] };

export type EngineShapesAgree = [
  Same<EngineVaultMetrics, Out<'VaultMetrics'>>,
  Same<EngineVaultTimeseriesPoint, Out<'VaultTimeseriesPoint'>>,
  Same<EngineVaultDetail, Out<'VaultDetail'>>,
  Same<EngineTvlRow, Out<'TvlRow'>>,
  Same<EngineTvlBreakdownRow, Out<'TvlBreakdownRow'>>,
  Same<PublishedTvl, Out<'Tvl'>>,
  Same<PartialError, Out<'PartialResponseError'>>,
  Same<EngineStrategyCard, Out<'StrategyCard'>>,
  Same<EngineFeaturedCard, Out<'FeaturedCard'>>,
  Same<LatestPrice, Out<'Price'>>,
  Same<EnginePositionMetrics, Out<'PositionMetrics'>>,
  Same<PositionPoint, Out<'PositionTimeseriesPoint'>>,
  Same<EngineActivityRow, Out<'ActivityRow'>>,
];

// Every entry must be `true`; a `false` at index i names the pair that drifted apart.
type AllTrue<T extends readonly true[]> = T;
export type EngineShapesChecked = AllTrue<EngineShapesAgree>;

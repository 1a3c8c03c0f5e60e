import { describe, expect, it } from 'vitest';
import { createChains } from './chains.js';
import { dataWarnings } from './warnings.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const tvl = {
  tvl: { usd: '3' },
  updated_at: '2026-06-01T00:00:00Z',
  totals: [
    { id: 'vaults', label: 'Indexed vaults', tvl: { usd: '1' }, updated_at: '2026-06-01T00:00:00Z' },
    { id: 'legacy', label: 'Legacy vaults API', tvl: { usd: '1' }, updated_at: '2026-05-21T00:00:00Z' },
    { id: 'old', label: 'Old mandates', tvl: { usd: '1' }, updated_at: '2026-05-29T00:00:00Z' },
  ],
};
const chainName = createChains().name;

describe('dataWarnings', () => {
  it('a failed TVL source, with the age of the value it still shows', () => {
    const w = dataWarnings({
      tvl,
      partialErrors: [{ code: 'TVL_SOURCE_FAILED', message: 'external TVL source "legacy" failed (ECONNREFUSED)', resource_id: 'legacy' }],
      chains: [],
      chainName,
      nowMs: now,
    });
    expect(w[0]).toEqual({
      id: 'source:legacy',
      text: 'Legacy vaults API: its last refresh failed; showing its value from 2026-05-21 00:00 UTC (11 d ago).',
      detail: 'external TVL source "legacy" failed (ECONNREFUSED)',
    });
    // a source 3 days behind the newest is stale too, though it reported no failure
    expect(w[1]).toEqual({ id: 'source:old', text: 'Old mandates has not updated since 2026-05-29 00:00 UTC (3 d ago).' });
    expect(w).toHaveLength(2);
  });

  it('stalled and lagging chains by name; fresh ones say nothing', () => {
    const w = dataWarnings({
      tvl: { ...tvl, totals: tvl.totals.slice(0, 1) },
      partialErrors: [{ code: 'PRICE_PROVIDER_FAILED', message: 'm', resource_id: 'coingecko' }],
      chains: [
        { chain_id: 1, latest_block: 1, latest_timestamp: now / 1000 - 60, lag_seconds: 60, freshness: 'fresh' },
        { chain_id: 8453, latest_block: 1, latest_timestamp: now / 1000 - 3 * 86_400, lag_seconds: 3 * 86_400, freshness: 'stalled' },
        { chain_id: 999_999, latest_block: null, latest_timestamp: null, lag_seconds: null, freshness: 'stalled' },
        { chain_id: 10, latest_block: 1, latest_timestamp: now / 1000 - 5 * 3600, lag_seconds: 5 * 3600, freshness: 'lagging' },
      ],
      chainName,
      nowMs: now,
    });
    expect(w.map((x) => x.id)).toEqual(['price:coingecko', 'chains:stalled', 'chains:lagging']);
    expect(w[1]!.text).toBe(
      'Indexing has stalled on Base (last block 3 d ago), Chain 999999 (no block read yet): figures from these chains may be out of date.',
    );
    expect(w[2]!.text).toBe('Indexing lags on OP Mainnet (last block 5 h ago): figures from this chain may be out of date.');
  });

  it('nothing to say about fresh data', () => {
    expect(dataWarnings({ tvl: { ...tvl, totals: tvl.totals.slice(0, 1) }, partialErrors: null, chains: null, chainName, nowMs: now })).toEqual([]);
  });
});

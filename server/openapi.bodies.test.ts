import * as v from 'valibot';
import { beforeAll, describe, expect, test } from 'vitest';
import { activityRowAt } from '../engine/activity/activityRows.js';
import { vaultIdOf } from '../model/events.js';
import { walletPositionList } from '../engine/publish/walletViews.js';
import { vaultTimeseriesPoint } from '../engine/metrics/vaultPoint.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import { pageBody } from '../engine/publish/page.js';
import { positionContext, walletOf } from '../engine/publish/walletIndex.js';
import { positionMetrics, positionNow } from '../engine/positions/positionMetrics.js';
import { positionPoints } from '../engine/positions/positionTimeseries.js';
import { isPositionOpen, replayPosition } from '../engine/positions/replayPosition.js';
import { isoSeconds } from '../model/format/numbers.js';
import { OPERATIONS } from './openapiOperations.js';
import { demoSnapshot } from '../test/helpers/demoSnapshot.js';
import { COMPONENTS, type ComponentName } from './schemas/responses.js';
import { ACTIVITY_ROW, DELETE, ITEM_META, LIST_META, mutated, POSITION, SAMPLE_BODIES, TVL, VAULT_DETAIL } from './schemas/sampleBodies.js';
import { createResponseValidator, type ResponseValidator } from './schemas/validateResponse.js';

let validator: ResponseValidator;
beforeAll(() => {
  validator = createResponseValidator();
});

/** The document (ajv) and the valibot schema it was generated from must agree on every body. */
function verdict(operationId: string, body: unknown, status = 200): boolean {
  const errors = validator.validate(operationId, status, body);
  const op = validator.resolve(operationId);
  if (status === 200 && typeof op.body === 'string') {
    const valibot = v.safeParse(COMPONENTS[op.body as ComponentName], body).success;
    expect(valibot, `valibot and the document disagree on ${operationId}: ${errors.join('; ')}`).toBe(errors.length === 0);
  }
  return errors.length === 0;
}

describe('hand-made bodies', () => {
  test.each(Object.entries(SAMPLE_BODIES))('%s: a valid sample is accepted', (operationId, body) => {
    expect(validator.validate(operationId, 200, body)).toEqual([]);
    expect(verdict(operationId, body)).toBe(true);
  });

  test('every JSON operation has a sample', () => {
    const json = Object.values(OPERATIONS)
      .filter((o) => typeof o.body === 'string')
      .map((o) => o.operationId);
    expect(Object.keys(SAMPLE_BODIES).sort()).toEqual(json.sort());
  });

  const accepted: [string, string, unknown][] = [
    ['VaultDetail without group (deployment has none)', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'group'], DELETE)],
    ['VaultDetail with a null strategy', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'strategy'], null)],
    ['VaultMetrics with as_of null (no snapshot yet)', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'as_of'], null)],
    ['a negative pnl', 'getPosition', mutated(SAMPLE_BODIES.getPosition, ['data', 'metrics', 'pnl', 'total', 'native'], '-0.000001')],
    [
      'a symbiotic definition (identity only)',
      'getVaultDefinition',
      {
        data: {
          ...pick(SAMPLE_BODIES.getVaultDefinition, ['vault_id', 'chain_id', 'address', 'name', 'symbol', 'owner', 'numeraire_token']),
          vault_type: 'symbiotic',
        },
        meta: ITEM_META,
      },
    ],
    [
      'an erc4626 definition (its asset)',
      'getVaultDefinition',
      {
        data: {
          ...pick(SAMPLE_BODIES.getVaultDefinition, ['vault_id', 'chain_id', 'address', 'name', 'symbol', 'owner', 'numeraire_token']),
          vault_type: 'erc4626',
          asset: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
        },
        meta: ITEM_META,
      },
    ],
    [
      'TVL with a breakdown',
      'getTvl',
      mutated(SAMPLE_BODIES.getTvl, ['data', 'breakdown'], [{ id: 'chain:1', label: 'Ethereum', source_id: 'vaults', tvl: { usd: null }, updated_at: null }]),
    ],
    [
      'an error with details',
      'getVault',
      { error: { code: 'INVALID_PARAMETER', message: 'invalid parameter "vault_id"', details: { parameter: 'vault_id' } } },
    ],
  ];
  test.each(accepted)('accepted: %s', (_, operationId, body) => {
    const status = (body as { error?: unknown }).error ? 422 : 200;
    expect(validator.validate(operationId, status, body)).toEqual([]);
    if (status === 200) expect(verdict(operationId, body)).toBe(true);
  });

  const rejected: [string, string, unknown][] = [
    ['VaultDetail without strategy', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'strategy'], DELETE)],
    ['VaultDetail with group: null (omitted, never null)', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'group'], null)],
    ['an unexpected key', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'tvl_usd'], '1')],
    ['a decimal in exponent notation', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'tvl', 'native'], '1.2345e3')],
    ['a decimal with a trailing fractional zero', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'tvl', 'usd'], '1235.50')],
    ['a decimal as a JSON number', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'unit_price'], 1.052)],
    ['a negative unit price', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'unit_price'], '-1')],
    ['an APY key missing (null, never absent)', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'apy_90d'], DELETE)],
    ['an APY as a string', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'apy_7d'], '0.05')],
    ['as_of as an ISO string', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'as_of'], '2026-01-15T00:00:00Z')],
    ['as_of with a fraction', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'metrics', 'as_of'], 1768435200.5)],
    ['a vault id with an uppercase address', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'vault_id'], '1:0x8EB67A509616cd6a7c1b3c8c21d48ff57df3d458')],
    ['an unknown vault_type', 'getVault', mutated(SAMPLE_BODIES.getVault, ['data', 'vault_type'], 'erc4627')],
    [
      "a morpho definition labelled erc4626 (its fields are not the family's)",
      'getVaultDefinition',
      mutated(SAMPLE_BODIES.getVaultDefinition, ['data', 'vault_type'], 'erc4626'),
    ],
    ['refreshed_at with milliseconds', 'getVault', mutated(SAMPLE_BODIES.getVault, ['meta', 'refreshed_at'], '2026-01-15T00:00:00.000Z')],
    ['refreshed_at with an offset', 'getVault', mutated(SAMPLE_BODIES.getVault, ['meta', 'refreshed_at'], '2026-01-15T00:00:00+00:00')],
    ['single-item meta with list keys', 'getVault', mutated(SAMPLE_BODIES.getVault, ['meta'], LIST_META)],
    ['list meta without request_id', 'listVaults', mutated(SAMPLE_BODIES.listVaults, ['meta', 'request_id'], DELETE)],
    ['list meta with an empty partial_errors (null when none)', 'listVaults', mutated(SAMPLE_BODIES.listVaults, ['meta', 'partial_errors'], [])],
    ['timeseries meta without start', 'getVaultTimeseries', mutated(SAMPLE_BODIES.getVaultTimeseries, ['meta', 'start'], DELETE)],
    ['positions-list meta with a non-null start', 'listPositions', mutated(SAMPLE_BODIES.listPositions, ['meta', 'start'], '2026-01-01T00:00:00Z')],
    ['a position without numeraire_token (null, never absent)', 'getPosition', mutated(SAMPLE_BODIES.getPosition, ['data', 'numeraire_token'], DELETE)],
    ['roi_pct as a string', 'getPosition', mutated(SAMPLE_BODIES.getPosition, ['data', 'metrics', 'roi_pct', 'native'], '1.5')],
    ['a morpho definition with aera hooks', 'getVaultDefinition', mutated(SAMPLE_BODIES.getVaultDefinition, ['data', 'hooks'], null)],
    ['fee_wad as a decimal', 'getVaultDefinition', mutated(SAMPLE_BODIES.getVaultDefinition, ['data', 'fee_wad'], '0.1')],
    [
      'an allocation target of another kind',
      'getVaultAllocations',
      mutated(SAMPLE_BODIES.getVaultAllocations, ['data', 'allocations', 0, 'target', 'kind'], 'vault'),
    ],
    [
      'an allocation flow of an unknown kind',
      'getVaultAllocations',
      mutated(SAMPLE_BODIES.getVaultAllocations, ['data', 'allocations', 1, 'target', 'flow', 'kind'], 'bridge'),
    ],
    ['an allocation amount as a string', 'getVaultAllocations', mutated(SAMPLE_BODIES.getVaultAllocations, ['data', 'allocations', 0, 'amount'], '1172.8')],
    ['an activity row of an unknown type', 'listActivity', { ...(SAMPLE_BODIES.listActivity as object), data: [{ ...ACTIVITY_ROW, type: 'mint' }] }],
    [
      'an activity row with block_timestamp as ISO',
      'listActivity',
      { ...(SAMPLE_BODIES.listActivity as object), data: [{ ...ACTIVITY_ROW, block_timestamp: '2026-01-10T00:00:00Z' }] },
    ],
    ['an activity row without request_hash', 'listActivity', mutated(SAMPLE_BODIES.listActivity, ['data', 0, 'request_hash'], DELETE)],
    ['TVL without totals', 'getTvl', mutated(SAMPLE_BODIES.getTvl, ['data', 'totals'], DELETE)],
    ['TVL meta without partial_errors', 'getTvl', { data: TVL, meta: ITEM_META }],
    ['a strategy card without vault_count', 'listStrategies', mutated(SAMPLE_BODIES.listStrategies, ['data', 0, 'vault_count'], DELETE)],
    ['a featured card with a bad vault id', 'listFeaturedVaults', mutated(SAMPLE_BODIES.listFeaturedVaults, ['data', 0, 'vault_ids', 1], 'base:0x1')],
    ['a price with a string usd', 'getPrice', mutated(SAMPLE_BODIES.getPrice, ['price', 'usd'], '1.0008')],
    ['a price in the {data, meta} envelope', 'getPrice', { data: SAMPLE_BODIES.getPrice, meta: ITEM_META }],
    ['price timeseries with meta', 'getPriceTimeseries', { ...(SAMPLE_BODIES.getPriceTimeseries as object), meta: ITEM_META }],
    ['health with an unknown status', 'getHealth', { status: 'up', version: '0.1.0', uptime_seconds: 1 }],
    ['chain health with an unknown freshness', 'listChainHealth', [{ chain_id: 1, latest_block: 1, latest_timestamp: 1, lag_seconds: 0, freshness: 'dead' }]],
  ];
  test.each(rejected)('rejected: %s', (_, operationId, body) => {
    expect(validator.validate(operationId, 200, body)).not.toEqual([]);
    expect(verdict(operationId, body)).toBe(false);
  });

  test('errors: the envelope per status narrows the code; message is required; a 304 has no body', () => {
    expect(validator.validate('getVault', 404, { error: { code: 'NOT_FOUND', message: 'no vault "1:0x…"' } })).toEqual([]);
    expect(validator.validate('getVault', 404, { error: { code: 'UNAUTHORIZED', message: 'x' } })).not.toEqual([]);
    expect(validator.validate('getVault', 422, { error: { code: 'INVALID_CURSOR', message: 'x' } })).toEqual([]);
    expect(validator.validate('getVault', 500, { error: { code: 'STORE_QUERY_FAILED', message: 'x' } })).not.toEqual([]);
    expect(validator.validate('getVault', 401, { error: { code: 'UNAUTHORIZED' } })).not.toEqual([]);
    expect(validator.validate('getVault', 304, undefined)).toEqual([]);
    expect(validator.validate('getVault', 304, { data: null })).not.toEqual([]);
    expect(validator.validate('listFeaturedVaults', 404, { error: { code: 'NOT_FOUND', message: 'x' } })).toEqual([
      'status 404 is not documented for listFeaturedVaults',
    ]);
  });

  test('operations resolve by operationId, route name, template or concrete request path', () => {
    for (const key of ['getPosition', 'users.position', '/v1/users/{wallet_address}/positions/{vault_id}', 'GET /v1/users/0xAb/positions/1:0xcd?x=1']) {
      expect(validator.resolve(key).operationId).toBe('getPosition');
    }
    expect(() => validator.resolve('/v2/nothing')).toThrow('no operation for "/v2/nothing"');
  });
});

describe('bodies the engine builds (a small demo world, no database)', () => {
  let snapshot: Snapshot;
  beforeAll(() => {
    snapshot = demoSnapshot();
  });

  test('every pre-built page of the snapshot matches its route', () => {
    expect(snapshot.pages.size).toBeGreaterThan(20);
    const seen = new Set<string>();
    for (const [key, page] of snapshot.pages) {
      const body = JSON.parse(pageBody(page, 'req-1').toString());
      const op = validator.resolve(key);
      seen.add(op.operationId);
      expect(validator.validate(key, 200, body), key).toEqual([]);
    }
    expect([...seen].sort()).toEqual(
      ['getTvl', 'getVault', 'getVaultAllocations', 'getVaultDefinition', 'listFeaturedVaults', 'listStrategies', 'listVaults', 'listVaultsBySlug'].sort(),
    );
  });

  test('every latest-price body is the flat price object of /v1/prices', () => {
    expect(snapshot.priceBodies.size).toBeGreaterThan(0);
    for (const [key, body] of snapshot.priceBodies) {
      const [chainId, address] = key.split(':');
      expect(validator.validate(`/v1/prices?address=${address}&chain_id=${chainId}`, 200, JSON.parse(body.toString())), key).toEqual([]);
    }
  });

  test('the TVL page with a failing external source carries partial_errors; breakdown only when asked', () => {
    const plain = JSON.parse(pageBody(snapshot.pages.get('/v1/tvl')!, 'r').toString());
    const full = JSON.parse(pageBody(snapshot.pages.get('/v1/tvl?include_breakdown=true')!, 'r').toString());
    expect(plain.data.breakdown).toBeUndefined();
    expect(full.data.breakdown.length).toBeGreaterThan(0);
    expect(plain.meta.partial_errors?.length ?? 0).toBeGreaterThan(0);
  });

  test('positions, position history, activity rows and vault timeseries points match their schemas', () => {
    const { world } = snapshot;
    let checked = 0;
    for (const wallet of world.events.dict.wallets.values.slice(0, 15)) {
      const positions = walletPositionList(world, wallet);
      const items = [];
      for (const p of positions) {
        const ctx = positionContext(world, p.vault_id);
        if (!ctx || positionNow(ctx) === null) continue;
        const state = replayPosition(p.rows, ctx);
        const v = world.vaults.get(p.vault_id)!;
        const numeraire_token = { address: v.numeraire_address, decimals: v.numeraire_decimals, symbol: v.numeraire_symbol };
        const metrics = positionMetrics(state, ctx, positionNow(ctx)!);
        if (isPositionOpen(state)) items.push({ vault_id: p.vault_id, wallet_address: wallet, numeraire_token, metrics });
        const instants = Array.from({ length: 10 }, (_, i) => world.end - i * 86_400).reverse();
        const points = positionPoints(p.rows, ctx, instants);
        const windowMeta = { ...LIST_META, count: points.length, start: isoSeconds(instants[0]!), end: isoSeconds(world.end) };
        expect(validator.validate('getPositionTimeseries', 200, { data: points, meta: windowMeta }), `${wallet} ${p.vault_id}`).toEqual([]);
        checked++;
      }
      const meta = { ...LIST_META, count: items.length, limit: 100, start: null, end: null };
      expect(validator.validate('listPositions', 200, { data: items, meta }), wallet).toEqual([]);
      const w = walletOf(world, wallet);
      const own = world.walletIndex.activity.subarray(world.walletIndex.activityStart[w], world.walletIndex.activityStart[w + 1]);
      const rows = [...own].map((i) => activityRowAt(world.events, i, positionContext(world, vaultIdOf(world.events, i))!));
      expect(validator.validate('listActivity', 200, { data: rows, meta: { ...meta, count: rows.length } }), wallet).toEqual([]);
    }
    expect(checked).toBeGreaterThan(5);
    for (const [id, series] of world.series) {
      if (series.length === 0) continue;
      const p = series.length - 1;
      const point = vaultTimeseriesPoint(
        series,
        p,
        series.ts[p]!,
        world.prices.get(`${world.vaults.get(id)!.chain_id}:${world.vaults.get(id)!.numeraire_address}`),
      );
      const body = { data: [point], meta: { ...LIST_META, start: point.timestamp, end: point.timestamp } };
      expect(validator.validate('getVaultTimeseries', 200, body), id).toEqual([]);
    }
  });

  test('a hand-made sample and the engine agree on the VaultDetail and Position key sets', () => {
    const detail = [...snapshot.details.values()].find((d) => d.group !== undefined)!;
    expect(Object.keys(detail).sort()).toEqual(Object.keys(VAULT_DETAIL).sort());
    expect(Object.keys(POSITION.metrics).sort()).toEqual(Object.keys(v.parse(COMPONENTS.PositionMetrics, POSITION.metrics)).sort());
  });
});

function pick(body: unknown, keys: string[]): Record<string, unknown> {
  const data = (body as { data: Record<string, unknown> }).data;
  return Object.fromEntries(keys.map((k) => [k, data[k]]));
}

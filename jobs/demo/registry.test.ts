import { describe, expect, it } from 'vitest';
import { FAMILY_TABLE } from '../../families/index.js';
import type { Registry } from '../../model/rows.js';
import { DEMO_CHAINS, DEMO_TOKENS } from './catalog.js';
import { DEMO_DEFAULTS, demoStart, type DemoParams } from './params.js';
import { buildDemoRegistry, FAILING_TVL_URL, groupId } from './registry.js';

const NOW = Date.UTC(2026, 0, 15, 10) / 1000;
const DAY = 86_400;
const params = (over: Partial<DemoParams> = {}): DemoParams => ({ ...DEMO_DEFAULTS, now: NOW, ...over });
const unpriced = new Set(DEMO_TOKENS.filter((t) => t.price === 'none').flatMap((t) => Object.values(t.addresses)));

/** The coverage DESIGN §7 asks of a registry with at least 16 deployments. */
function expectCoverage(r: Registry, now: number): void {
  const v = r.vaults;
  // every family with demo hooks (a family without them is never in a demo world)
  expect(new Set(v.map((x) => x.vault_type))).toEqual(new Set(FAMILY_TABLE.filter((f) => f.demo).map((f) => f.type)));
  expect(v.some((x) => x.visibility === 'hidden')).toBe(true);
  expect(v.some((x) => x.visibility === 'disabled')).toBe(true);
  expect(v.some((x) => x.group_id === null)).toBe(true);
  expect(v.some((x) => x.strategy_id === null)).toBe(true);
  expect(v.some((x) => unpriced.has(x.numeraire_address))).toBe(true);
  expect(v.some((x) => now - x.listed_at < 90 * DAY)).toBe(true);
  const sizes = new Map<string, number>();
  for (const x of v) if (x.group_id) sizes.set(x.group_id, (sizes.get(x.group_id) ?? 0) + 1);
  expect([...sizes.values()].some((n) => n > 1)).toBe(true);
}

function expectWellFormed(r: Registry, p: DemoParams): void {
  const ids = new Set(r.vaults.map((v) => v.vault_id));
  expect(ids.size).toBe(r.vaults.length);
  const groups = new Set(r.groups.map((g) => g.id));
  const strategies = new Set(r.strategies.map((s) => s.id));
  const tokens = new Set(r.tokens.map((t) => `${t.chain_id}:${t.address}`));
  const chains = new Set(r.chains.map((c) => c.chain_id));
  for (const v of r.vaults) {
    expect(v.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(v.vault_id).toBe(`${v.chain_id}:${v.address}`);
    expect(v.numeraire_address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(chains.has(v.chain_id)).toBe(true);
    expect(tokens.has(`${v.chain_id}:${v.numeraire_address}`)).toBe(true);
    if (v.group_id !== null) expect(groups.has(v.group_id)).toBe(true);
    else expect(v.is_primary).toBe(false);
    if (v.strategy_id !== null) expect(strategies.has(v.strategy_id)).toBe(true);
    expect(v.listed_at % 3600).toBe(0);
    expect(v.listed_at).toBeGreaterThanOrEqual(demoStart(p));
    expect(v.listed_at).toBeLessThanOrEqual(p.now);
  }
  for (const g of r.groups) {
    const members = r.vaults.filter((v) => v.group_id === g.id);
    expect(members.length).toBeGreaterThan(0);
    expect(members.filter((v) => v.is_primary)).toHaveLength(1);
    expect(g.deployment_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  }
  expect(new Set(r.groups.map((g) => g.slug)).size).toBe(r.groups.length);
}

describe('buildDemoRegistry (default world)', () => {
  const p = params();
  const r = buildDemoRegistry(p);

  it('has four chains, 4+ strategies, 8+ groups and 16+ deployments', () => {
    expect(r.chains.map((c) => c.slug).sort()).toEqual(['arbitrum', 'base', 'ethereum', 'optimism']);
    expect(r.chains.find((c) => c.chain_id === 1)?.finality_blocks).toBe(12);
    expect(r.chains.every((c) => c.rpc_urls.length === 0)).toBe(true);
    expect(r.strategies.length).toBeGreaterThanOrEqual(4);
    expect(r.strategies.map((s) => s.display_rank)).toEqual(r.strategies.map((_, i) => i + 1));
    expect(r.groups.length).toBeGreaterThanOrEqual(8);
    expect(r.vaults.length).toBeGreaterThanOrEqual(16);
    const featured = r.groups.filter((g) => g.featured_rank !== null).map((g) => g.featured_rank);
    expect(featured.sort()).toEqual([1, 2, 3, 4]);
  });

  it('covers every case the API must handle', () => {
    expectCoverage(r, p.now);
    expectWellFormed(r, p);
    // a young deployment listed 45 days ago, and some with the full 400+ days
    expect(r.vaults.some((v) => v.listed_at === p.now - 45 * DAY)).toBe(true);
    expect(r.vaults.filter((v) => p.now - v.listed_at >= 400 * DAY).length).toBeGreaterThan(2);
  });

  it('uses the manifest deployments with their real numeraires', () => {
    const alpha = r.vaults.filter((v) => v.group_id === groupId('gauntlet-usd-alpha'));
    expect(r.groups.find((g) => g.id === groupId('gauntlet-usd-alpha'))?.slug).toBe('gauntlet-usd-alpha');
    expect(alpha.map((v) => v.chain_id).sort((a, b) => a - b)).toEqual([1, 10, 8453, 42161]);
    expect(alpha.find((v) => v.is_primary)?.vault_id).toBe('8453:0x000000000001cdb57e58fa75fe420a0f4d6640d5');
    const btc = r.vaults.find((v) => v.name === 'Gauntlet BTC Yield')!;
    expect([btc.numeraire_symbol, btc.numeraire_decimals, btc.numeraire_address]).toEqual(['cbBTC', 8, '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf']);
    const juno = r.vaults.find((v) => v.name === 'Juno MXNB Prime')!;
    expect(juno.numeraire_symbol).toBe('MXNB');
  });

  it('gives each family its definition fields (DESIGN §5.2)', () => {
    for (const v of r.vaults) {
      const d = v.definition;
      expect(d.owner).toMatch(/^0x[0-9a-f]{40}$/);
      if (v.vault_type === 'aera_v3') {
        expect(Object.keys(d).sort()).toEqual(['fee_calculator', 'fees', 'hooks', 'owner', 'provisioner']);
        expect(d.fees).toEqual({ tvl_fee_bps: expect.any(Number), performance_fee_bps: expect.any(Number) });
      } else if (v.vault_type === 'symbiotic') {
        expect(Object.keys(d)).toEqual(['owner']);
      } else {
        expect(Object.keys(d).sort()).toEqual(['curator', 'fee_recipient', 'fee_wad', 'owner', 'timelock_seconds']);
        expect(d.fee_wad).toMatch(/^\d+$/);
        expect(BigInt(d.fee_wad as string)).toBeLessThan(10n ** 18n);
      }
    }
  });

  it('lists every numeraire once with its decimals', () => {
    const usdcBase = r.tokens.find((t) => t.chain_id === 8453 && t.symbol === 'USDC');
    expect(usdcBase).toEqual({ chain_id: 8453, address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', symbol: 'USDC', decimals: 6 });
    expect(new Set(r.tokens.map((t) => `${t.chain_id}:${t.address}`)).size).toBe(r.tokens.length);
  });

  it('has one healthy and one failing external TVL source', () => {
    expect(r.tvl_sources.map((s) => [s.kind, s.display_rank])).toEqual([
      ['demo', 1],
      ['http', 2],
    ]);
    expect(r.tvl_sources[1]!.config).toEqual({ url: FAILING_TVL_URL, path: 'tvl', timeout_ms: 2000 });
  });

  it('is the same for the same params, whatever the wallet count', () => {
    expect(buildDemoRegistry(params({ wallets: 5 }))).toEqual(r);
  });
});

describe('buildDemoRegistry (scale flag)', () => {
  it('builds 1,000 deployments that keep the coverage', () => {
    const p = params({ vaults: 1000, days: 730 });
    const r = buildDemoRegistry(p);
    expect(r.vaults).toHaveLength(1000);
    expectCoverage(r, p.now);
    expectWellFormed(r, p);
    expect(r.chains).toHaveLength(DEMO_CHAINS.length);
    const sizes = new Map<string, number>();
    for (const v of r.vaults) if (v.group_id) sizes.set(v.group_id, (sizes.get(v.group_id) ?? 0) + 1);
    expect(Math.max(...sizes.values())).toBeLessThanOrEqual(4);
    // a benchmark world: most deployments carry the whole history
    expect(r.vaults.filter((v) => v.listed_at === demoStart(p)).length).toBeGreaterThan(900);
  });

  it('keeps the coverage with 16 deployments', () => {
    const p = params({ vaults: 16 });
    const r = buildDemoRegistry(p);
    expect(r.vaults).toHaveLength(16);
    expectCoverage(r, p.now);
    expectWellFormed(r, p);
  });

  it('still elects one primary per group when truncated below 16', () => {
    for (const n of [1, 2, 5, 9]) {
      const p = params({ vaults: n });
      const r = buildDemoRegistry(p);
      expect(r.vaults).toHaveLength(n);
      expectWellFormed(r, p);
    }
  });

  it('clamps listing times into a short history', () => {
    const p = params({ days: 10 });
    expectWellFormed(buildDemoRegistry(p), p);
  });
});

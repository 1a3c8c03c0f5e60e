// Builds the demo registry (DESIGN §3, §7): chains, strategies, logical vault groups and
// deployments, numeraire tokens and external TVL sources, deterministically from DemoParams.
import { familyOf, type VaultType } from '../../families/index.js';
import type { GroupRow, Registry, StrategyRow, TokenRow, TvlSourceRow, VaultRow } from '../../model/rows.js';
import { DEMO_CHAINS, demoToken } from './catalog.js';
import { CURATED_DEPLOYMENTS, CURATED_GROUPS, CURATED_STRATEGIES, SCALE_TEMPLATES, type CuratedDeployment, type CuratedGroup } from './curated.js';
import { assertDemoParams, demoHorizon, demoStart, type DemoParams } from './params.js';
import { createRng, deriveAddress, hashString } from './prng.js';

const HOUR = 3600;
const DAY = 86_400;
/** Registry identities (owners, hooks, invented vaults) do not change with the world's seed. */
const ID_SEED = 0;

/** The failing external source's URL: port 9 (discard) on loopback refuses at once, offline. */
export const FAILING_TVL_URL = 'http://127.0.0.1:9/unreachable';

/**
 * The whole registry of the world of `params`: every deployment it ever lists, some possibly
 * after `now` (listedBy() keeps those listed by an instant). It depends on the seed, the first
 * hour and the span only, never on `now`, so every `now` of one world lists the same vaults at
 * the same times (DESIGN §11.6).
 */
export function buildDemoRegistry(params: DemoParams): Registry {
  assertDemoParams(params);
  const start = demoStart(params);
  const horizon = demoHorizon(params);
  const specs = selectDeployments(params);

  const groupSpecs = new Map<string, CuratedGroup>(CURATED_GROUPS.map((g) => [g.key, g]));
  for (const s of specs) if (s.group !== null && !groupSpecs.has(s.group)) groupSpecs.set(s.group, s.groupSpec!);

  const vaults: VaultRow[] = specs.map((s) => toVaultRow(s, start, horizon));
  // Group ids differ from slugs on purpose, so code that mixes the two up fails in the demo too.
  const slugOf = new Map<string, string>();
  for (const v of vaults) {
    if (v.group_id === null) continue;
    const slug = v.group_id;
    v.group_id = groupId(slug);
    slugOf.set(v.group_id, slug);
  }
  ensureOnePrimaryPerGroup(vaults);

  const groups: GroupRow[] = [];
  for (const [id, slug] of slugOf) {
    const g = groupSpecs.get(slug)!;
    const firstListed = Math.min(...vaults.filter((v) => v.group_id === id).map((v) => v.listed_at));
    groups.push({
      id,
      slug,
      name: g.name,
      is_stable: g.is_stable,
      deployment_date: new Date(firstListed * 1000).toISOString().slice(0, 10),
      description: g.description,
      short_description: g.short_description,
      featured_rank: g.featured_rank,
    });
  }

  const strategies: StrategyRow[] = CURATED_STRATEGIES.map((s, i) => ({ ...s, display_rank: i + 1 }));

  const tokens = new Map<string, TokenRow>();
  for (const v of vaults) {
    tokens.set(`${v.chain_id}:${v.numeraire_address}`, {
      chain_id: v.chain_id,
      address: v.numeraire_address,
      symbol: v.numeraire_symbol,
      decimals: v.numeraire_decimals,
    });
  }

  const usedChains = new Set(vaults.map((v) => v.chain_id));
  return {
    chains: DEMO_CHAINS.filter((c) => usedChains.has(c.chain_id)).map((c) => ({
      chain_id: c.chain_id,
      slug: c.slug,
      name: c.name,
      finality_blocks: c.finality_blocks,
      rpc_urls: [],
    })),
    strategies,
    groups,
    vaults,
    tokens: [...tokens.values()].sort((a, b) => a.chain_id - b.chain_id || a.address.localeCompare(b.address)),
    tvl_sources: TVL_SOURCES.map((s) => ({ ...s, config: { ...s.config } })),
  };
}

const TVL_SOURCES: readonly TvlSourceRow[] = [
  {
    id: 'offchain-mandates',
    label: 'Gauntlet off-chain mandates',
    kind: 'demo',
    config: { base_usd: '185000000' },
    display_rank: 1,
  },
  {
    id: 'legacy-vaults-api',
    label: 'Legacy vaults API',
    kind: 'http',
    config: { url: FAILING_TVL_URL, path: 'tvl', timeout_ms: 2000 },
    display_rank: 2,
  },
];

/** A deployment to build, curated or generated for a scale world. */
interface Spec extends CuratedDeployment {
  /** generated groups carry their own group spec */
  groupSpec?: CuratedGroup;
  /** generated deployments carry their listing time directly */
  listedTs?: number;
  /** label the invented addresses derive from */
  idLabel: string;
}

function selectDeployments(params: DemoParams): Spec[] {
  const curated: Spec[] = CURATED_DEPLOYMENTS.map((c) => ({ ...c, idLabel: `${c.chain_id}:${c.symbol}` }));
  const n = params.vaults ?? curated.length;
  if (n <= curated.length) return curated.slice(0, n);
  return [...curated, ...generateDeployments(params, n - curated.length)];
}

/**
 * Scale worlds: logical vaults of 1–4 deployments that cycle through the templates and the
 * chains where the template's token exists, with fresh derived addresses.
 */
function generateDeployments(params: DemoParams, count: number): Spec[] {
  const rng = createRng(params.seed, 'registry:scale');
  const start = demoStart(params);
  const span = demoHorizon(params) - start;
  const out: Spec[] = [];
  for (let g = 0; out.length < count; g++) {
    const t = SCALE_TEMPLATES[g % SCALE_TEMPLATES.length]!;
    const token = demoToken(t.token);
    const chains = DEMO_CHAINS.map((c) => c.chain_id).filter((id) => token.addresses[id] !== undefined);
    const u = rng.float();
    const want = u < 0.4 ? 1 : u < 0.7 ? 2 : u < 0.9 ? 3 : 4;
    const size = Math.min(want, chains.length, count - out.length);
    const series = Math.floor(g / SCALE_TEMPLATES.length) + 2;
    const name = `${t.name} ${series}`;
    const key = `${slugify(t.name)}-${series}`;
    const grouped = !(size === 1 && rng.chance(0.03));
    const groupSpec: CuratedGroup = {
      key,
      name,
      is_stable: t.is_stable,
      featured_rank: null,
      short_description: `${t.name}, series ${series}.`,
      description: `${name}: a generated deployment set of the ${t.name} template.`,
    };
    const strategy = rng.chance(0.03) ? null : t.strategy;
    for (let k = 0; k < size; k++) {
      const chainId = chains[(g + k) % chains.length]!;
      const vis = rng.float();
      // most start with the window, so the benchmark world is close to vaults × days × 24 snapshots
      const old = rng.chance(0.97) || span <= 30 * DAY;
      const listedTs = old ? start : start + rng.int(0, Math.floor((span - 30 * DAY) / HOUR)) * HOUR;
      out.push({
        group: grouped ? key : null,
        chain_id: chainId,
        address: deriveAddress(ID_SEED, 'demo-vault', g * 8 + k),
        vault_type: t.vault_type,
        token: t.token,
        name,
        symbol: t.symbol,
        strategy,
        visibility: vis < 0.01 ? 'disabled' : vis < 0.04 ? 'hidden' : 'visible',
        primary: k === 0,
        listed: { frac: 0 },
        listedTs,
        groupSpec,
        idLabel: `gen:${g}:${k}`,
      });
    }
  }
  return out;
}

function toVaultRow(s: Spec, start: number, horizon: number): VaultRow {
  const token = demoToken(s.token);
  const numeraire = token.addresses[s.chain_id];
  if (numeraire === undefined) throw new RangeError(`${s.token} has no address on chain ${s.chain_id}`);
  const address = (s.address ?? deriveAddress(ID_SEED, 'symbiotic-vault', hashString(s.idLabel))).toLowerCase();
  return {
    vault_id: `${s.chain_id}:${address}`,
    chain_id: s.chain_id,
    address,
    vault_type: s.vault_type,
    name: s.name,
    symbol: s.symbol,
    numeraire_address: numeraire,
    numeraire_decimals: token.decimals,
    numeraire_symbol: token.symbol,
    group_id: s.group,
    is_primary: s.group !== null && s.primary,
    strategy_id: s.strategy,
    visibility: s.visibility,
    listed_at: s.listedTs ?? listedAt(s, start, horizon),
    definition: definitionFor(s.vault_type, s.chain_id, s.idLabel, s.strategy),
  };
}

/** On the hour, within [start, horizon] ("days before now" counts back from the horizon). */
function listedAt(s: CuratedDeployment, start: number, horizon: number): number {
  const ts = 'frac' in s.listed ? start + Math.round((s.listed.frac * (horizon - start)) / HOUR) * HOUR : horizon - s.listed.daysBeforeNow * DAY;
  return Math.min(horizon, Math.max(start, ts));
}

/**
 * The registry as it stood at `at`: the vaults listed by then, the groups with one of them; the
 * strategies, chains, tokens and external sources as they are (curated data, today's settings).
 */
export function listedBy(registry: Registry, at: number): Registry {
  const vaults = registry.vaults.filter((v) => v.listed_at <= at);
  const groups = new Set(vaults.map((v) => v.group_id));
  return { ...registry, vaults, groups: registry.groups.filter((g) => groups.has(g.id)) };
}

/** Family fields of the definition (DESIGN §5.2), from the family's demo hooks; addresses derived, fees plausible per strategy. */
function definitionFor(type: VaultType, chainId: number, label: string, strategy: string | null): Record<string, unknown> {
  const owner = deriveAddress(ID_SEED, 'gauntlet-multisig', chainId);
  const demo = familyOf(type).demo;
  if (!demo) return { owner };
  return demo.definition({
    owner,
    strategy,
    perChain: (tag) => deriveAddress(ID_SEED, tag, chainId),
    perVault: (tag) => deriveAddress(ID_SEED, tag, hashString(label)),
  });
}

/** Exactly one primary per group: a truncated selection may have dropped the curated primary. */
function ensureOnePrimaryPerGroup(vaults: VaultRow[]): void {
  const seen = new Set<string>();
  for (const v of vaults) if (v.group_id !== null && v.is_primary) seen.add(v.group_id);
  for (const v of vaults) {
    if (v.group_id === null || seen.has(v.group_id)) continue;
    v.is_primary = true;
    seen.add(v.group_id);
  }
}

/** The registry's internal id of a logical vault, e.g. `grp_gauntlet_usd_alpha`. */
export function groupId(slug: string): string {
  return `grp_${slug.replace(/-/g, '_')}`;
}

function slugify(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

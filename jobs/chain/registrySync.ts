// Config registry → DB registry (DESIGN §2, §3, §5.2): vault ids `{chainId}:{lowercase address}`,
// numeraire fields, tokens, and the definition's family fields read on chain where the family's
// ledger names a cheap call for them (`Ledger.facts`: Morpho's owner, curator, fee, fee recipient
// and timelock; Aera's owner and fees), else from the config's `definition`, else what the
// database already holds. A chain that cannot be read never blocks the sync: its vaults keep
// their stored values.
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { VaultdError, describeError } from '../../common/errors.js';
import { readRegistry, tvlSourceRows, writeRegistry } from '../../store/registryStore.js';
import type { Registry, TokenRow, VaultRow } from '../../model/rows.js';
import type { Store } from '../../store/store.js';
import { familyOf, type LedgerFact } from '../../families/index.js';
import { vaultId, type IndexedVault } from './addressBook.js';
import { readCall } from './chainAbis.js';
import type { ChainRuntime } from './chainRuntime.js';
import { ceilHour } from './hourlySnapshots.js';
import type { ReadCall } from './multicallReader.js';
import { classifyRpcError } from '../evm/rpcErrors.js';
import type { Mutex } from '../../common/mutex.js';

/** What the chain says about a vault: family fields and its first hour. */
export interface OnchainFacts {
  definition: Record<string, unknown>;
  listed_at: number | null;
}

/** One multicall per chain at its final head: the family fields of every vault. */
export async function readOnchainFacts(rt: ChainRuntime): Promise<Map<string, OnchainFacts>> {
  const out = new Map<string, OnchainFacts>();
  if (rt.book.vaults.length === 0) return out;
  if (!rt.verified) {
    await rt.rpc.verifyChainId();
    rt.verified = true;
  }
  const head = await rt.rpc.blockNumber();
  const at = Math.max(0, head - rt.chain.finality_blocks);
  const calls: ReadCall[] = [];
  const plan: { v: IndexedVault; fact: LedgerFact; index: number }[] = [];
  for (const v of rt.book.vaults) {
    for (const fact of v.ledger.facts(v)) {
      plan.push({ v, fact, index: calls.length });
      calls.push(readCall(v.ledger, fact.call));
    }
  }
  const results = await rt.reader.read(at, calls);
  await rt.clock.prefetch(rt.book.vaults.map((v) => v.start_block).filter((b) => b <= head));
  for (const v of rt.book.vaults) {
    const start = rt.clock.cached(v.start_block);
    out.set(v.vault_id, { definition: {}, listed_at: start ? ceilHour(start.timestamp) : null });
  }
  for (const p of plan) {
    const r = results[p.index];
    if (!r?.ok) continue;
    const value = p.fact.value(r.value);
    if (value !== undefined) out.get(p.v.vault_id)!.definition[p.fact.field] = value;
  }
  return out;
}

/** The registry rows from the config; on-chain facts win over config values, which win over stored ones. */
export function buildRegistry(
  config: Pick<Config, 'chains' | 'registry' | 'tvl_sources'>,
  facts: ReadonlyMap<string, OnchainFacts>,
  previous: Registry | null,
  now: number,
): Registry {
  const prevVaults = new Map(previous?.vaults.map((v) => [v.vault_id, v]));
  const vaults: VaultRow[] = config.registry.vaults.map((v) => {
    const id = vaultId(v.chain_id, v.address);
    const fact = facts.get(id);
    const prev = prevVaults.get(id);
    const family = familyOf(v.vault_type).definition.fromConfig(v);
    const listedConfig = v.listed_at === undefined ? null : Math.floor(Date.parse(v.listed_at) / 1000);
    return {
      vault_id: id,
      chain_id: v.chain_id,
      address: v.address.toLowerCase(),
      vault_type: v.vault_type,
      name: v.name,
      symbol: v.symbol,
      numeraire_address: v.numeraire_token.address.toLowerCase(),
      numeraire_decimals: v.numeraire_token.decimals,
      numeraire_symbol: v.numeraire_token.symbol,
      group_id: v.group_id ?? null,
      is_primary: v.is_primary,
      strategy_id: v.strategy_id ?? null,
      visibility: v.visibility,
      listed_at: listedConfig ?? fact?.listed_at ?? prev?.listed_at ?? ceilHour(now),
      definition: { ...(fact ? {} : prev?.definition), ...v.definition, ...family, ...fact?.definition },
    };
  });
  const tokens = new Map<string, TokenRow>();
  for (const v of config.registry.vaults) {
    const address = v.numeraire_token.address.toLowerCase();
    tokens.set(`${v.chain_id}:${address}`, { chain_id: v.chain_id, address, symbol: v.numeraire_token.symbol, decimals: v.numeraire_token.decimals });
  }
  return {
    chains: config.chains.map((c) => ({ chain_id: c.chain_id, slug: c.slug, name: c.name, finality_blocks: c.finality_blocks, rpc_urls: [...c.rpc_urls] })),
    strategies: config.registry.strategies.map((s, i) => ({
      id: s.id,
      name: s.name,
      description: s.description ?? null,
      short_description: s.short_description ?? null,
      display_rank: s.display_rank ?? i + 1,
    })),
    groups: config.registry.groups.map((g) => ({
      id: g.id,
      slug: g.slug,
      name: g.name,
      is_stable: g.is_stable,
      deployment_date: g.deployment_date ?? null,
      description: g.description ?? null,
      short_description: g.short_description ?? null,
      featured_rank: g.featured_rank ?? null,
    })),
    vaults: vaults.sort((a, b) => (a.vault_id < b.vault_id ? -1 : a.vault_id > b.vault_id ? 1 : 0)),
    tokens: [...tokens.values()],
    tvl_sources: tvlSourceRows(config),
  };
}

/**
 * Writes the config's registry (skipped when the config registers no vault, so an ingest run
 * never wipes a demo world). Returns the vault count written, or null when skipped.
 */
export async function syncRegistry(common: Common, store: Store, lock: Mutex, config: Config, runtimes: readonly ChainRuntime[]): Promise<number | null> {
  if (config.registry.vaults.length === 0) return null;
  const logger = common.logger.child({ component: 'ingest' });
  const facts = new Map<string, OnchainFacts>();
  await Promise.all(
    runtimes.map(async (rt) => {
      try {
        for (const [id, f] of await readOnchainFacts(rt)) facts.set(id, f);
      } catch (err) {
        // the provider's words only: a viem message carries the RPC URL, which may hold an API key
        const error = err instanceof VaultdError ? describeError(err) : classifyRpcError(err).message;
        logger.warn({ chain_id: rt.chain.chain_id, error }, 'definition fields not read on chain; keeping stored ones');
      }
    }),
  );
  return lock.run(async () => {
    const previous = await readRegistry(store);
    const registry = buildRegistry(config, facts, previous, Date.now() / 1000);
    await store.transaction('ingest.registry', () => writeRegistry(store, registry));
    return registry.vaults.length;
  });
}

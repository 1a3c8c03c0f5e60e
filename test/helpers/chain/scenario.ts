// Test support: a devnet scenario and the vaultd config that points the indexer at it.
import type { Config, ConfigInput } from '../../../common/config.js';
import { VAULT_TYPES } from '../../../families/index.js';
import { parseConfig } from '../../../common/config.js';
import { devnetConfig, simulateDevnet, startDevnet, type Devnet, type DevnetManifest } from '../../../devnet/index.js';

export interface Scenario {
  devnet: Devnet;
  manifest: DevnetManifest;
}

export async function startScenario(opts: { chainId?: number; days?: number; seed?: number; wallets?: number } = {}): Promise<Scenario> {
  const devnet = await startDevnet({ chainId: opts.chainId ?? 31337 });
  const manifest = await simulateDevnet(devnet, { days: opts.days ?? 7, seed: opts.seed ?? 7, wallets: opts.wallets ?? 20 });
  return { devnet, manifest };
}

export interface ScenarioConfigOptions {
  rpcUrls?: string[];
  finality?: number;
  /** more registry vaults (e.g. a contract that emits bad logs) */
  extraVaults?: NonNullable<NonNullable<ConfigInput['registry']>['vaults']>;
  db?: string;
}

/** The config input (what a JSON file would hold). */
export function scenarioConfigInput(manifest: DevnetManifest, opts: ScenarioConfigOptions = {}): ConfigInput {
  const base = devnetConfig(manifest);
  return {
    ...(opts.db ? { db: opts.db } : {}),
    chains: base.chains.map((c) => ({ ...c, rpc_urls: opts.rpcUrls ?? c.rpc_urls, finality_blocks: opts.finality ?? c.finality_blocks })),
    registry: { vaults: [...base.registry.vaults, ...(opts.extraVaults ?? [])] },
    // the chain ingest ignores it; the prices job reads the feeds over the same RPC URLs
    prices: base.prices,
  };
}

/** A validated Config as `loadConfig` would return it. */
export function scenarioConfig(manifest: DevnetManifest, opts: ScenarioConfigOptions = {}): Config {
  return { ...parseConfig(VAULT_TYPES, scenarioConfigInput(manifest, opts), 'test'), source: null, log_level: 'silent' };
}

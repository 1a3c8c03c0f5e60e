// The slice of a vaultd configuration (DESIGN §2) that points the ingest jobs at a devnet:
// one chain with the devnet's RPC URL, its four vaults in the registry, and its USD feeds as
// the Chainlink price provider. Typed against the config schema's input, so a schema change
// that breaks it fails to compile.
import type { ConfigInput } from '../common/config.js';
import type { DevnetManifest } from './simulate.js';

export type DevnetConfig = Required<Pick<ConfigInput, 'chains' | 'prices'>> & {
  registry: { vaults: NonNullable<NonNullable<ConfigInput['registry']>['vaults']> };
};

export function devnetConfig(manifest: DevnetManifest, slug = 'devnet'): DevnetConfig {
  return {
    chains: [
      // no reorgs on a single local node; blocks are an hour of simulated time apart
      { chain_id: manifest.chainId, slug, name: 'vaultd devnet', rpc_urls: [manifest.rpcUrl], finality_blocks: 0, block_time_seconds: 3600 },
    ],
    // the numeraires' USD prices from the devnet's Chainlink-like feeds, one feed per token
    prices: {
      providers: [
        {
          kind: 'chainlink',
          chain_id: manifest.chainId,
          feeds: [...new Map(manifest.vaults.map((v) => [v.numeraire.address.toLowerCase(), v.aggregator])).entries()].map(([token, aggregator]) => ({
            token,
            aggregator,
          })),
        },
      ],
    },
    registry: {
      vaults: manifest.vaults.map((v) => ({
        chain_id: manifest.chainId,
        address: v.address,
        vault_type: v.vault_type,
        name: v.name,
        symbol: v.symbol,
        numeraire_token: { ...v.numeraire },
        start_block: manifest.startBlock,
        ...(v.provisioner === undefined ? {} : { provisioner: v.provisioner }),
        ...(v.fee_calculator === undefined ? {} : { fee_calculator: v.fee_calculator }),
        // what the config schema has no key for: the provisioner's event version, Multicall3
        definition: {
          ...(v.provisioner_version === undefined ? {} : { provisioner_version: v.provisioner_version }),
          multicall3: manifest.contracts.multicall3,
        },
      })),
    },
  };
}

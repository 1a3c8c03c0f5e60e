// The slice of a vaultd configuration (DESIGN §2) that points the ingest jobs at a devnet:
// one chain with the devnet's RPC URL, and its four vaults in the registry. Typed against
// the config schema's input, so a schema change that breaks it fails to compile.
import type { ConfigInput } from '../../common/config.js';
import type { DevnetManifest } from './simulate.js';

export type DevnetConfig = Required<Pick<ConfigInput, 'chains'>> & { registry: { vaults: NonNullable<NonNullable<ConfigInput['registry']>['vaults']> } };

export function devnetConfig(manifest: DevnetManifest, slug = 'devnet'): DevnetConfig {
  return {
    chains: [
      // no reorgs on a single local node; blocks are an hour of simulated time apart
      { chain_id: manifest.chainId, slug, name: 'vaultd devnet', rpc_urls: [manifest.rpcUrl], finality_blocks: 0, block_time_seconds: 3600 },
    ],
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
        // what the config schema has no key for: the USD feed, the provisioner's event version
        definition: {
          usd_aggregator: v.aggregator,
          ...(v.provisioner_version === undefined ? {} : { provisioner_version: v.provisioner_version }),
          multicall3: manifest.contracts.multicall3,
        },
      })),
    },
  };
}

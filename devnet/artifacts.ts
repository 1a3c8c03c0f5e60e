// Runtime access to the committed contract artifacts (devnet/artifacts/<Name>.json, built
// by compile.ts). Read from the source tree, so the compiled program and vitest find the same files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { PROJECT_ROOT } from '../common/version.js';
import { VaultdError } from '../common/errors.js';

export const DEVNET_DIR = join(PROJECT_ROOT, 'devnet');
export const CONTRACTS_DIR = join(DEVNET_DIR, 'contracts');
export const ARTIFACTS_DIR = join(DEVNET_DIR, 'artifacts');

export const CONTRACT_NAMES = [
  'AeraLikeProvisionerV1',
  'AeraLikeProvisionerV2',
  'AeraLikeVault',
  'ChainlinkLikeAggregator',
  'MorphoLikeVault',
  'Multicall3',
  'PlainERC4626Vault',
  'PriceAndFeeCalculator',
  'TestToken',
] as const;

export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface Artifact {
  contractName: string;
  sourceName: string;
  compiler: string;
  abi: unknown[];
  bytecode: Hex;
}

const cache = new Map<ContractName, Artifact>();

/** The artifact of one deployable contract (cached: deployments read each a few times). */
export function loadArtifact(name: ContractName): Artifact {
  let artifact = cache.get(name);
  if (artifact === undefined) {
    const path = join(ARTIFACTS_DIR, `${name}.json`);
    try {
      artifact = JSON.parse(readFileSync(path, 'utf8')) as Artifact;
    } catch (cause) {
      throw new VaultdError('SOURCE_FAILED', `devnet artifact ${name}.json is missing or unreadable: run node dist/devnet/compile.js`, { cause });
    }
    cache.set(name, artifact);
  }
  return artifact;
}

// The devnet's public surface (DESIGN §6.2), for `vaultd devnet` and the end-to-end tests:
// start a local Hardhat chain served over HTTP, deploy and simulate, describe it as config.
export { DEFAULT_CHAIN_ID, DEFAULT_START_TIME, HOUR, devnetChain, mineBlockAt, mineEmptyHours, startDevnet } from './chain.js';
export type { Devnet, StartDevnetOptions } from './chain.js';
export { simulateDevnet } from './simulate.js';
export type { DevnetManifest, ManifestVault, SimulateOptions } from './simulate.js';
export { devnetConfig } from './devnetConfig.js';
export type { DevnetConfig } from './devnetConfig.js';

/** Genesis time for a scenario of `days` whose last hourly block is the last full hour before `now` (unix s). */
export function genesisEndingAt(now: number, days: number): number {
  const lastFullHour = Math.floor(now / 3600) * 3600;
  return lastFullHour - days * 24 * 3600;
}

// Deployment blocks found by search (jobs/evm/findDeployBlock.ts), cached as settings rows so
// the search runs once per contract per database: `deploy_block:{chainId}:{address}` → block.
import { getSetting, setSetting } from './settings.js';
import type { Store } from './store.js';

const key = (chainId: number, address: string) => `deploy_block:${chainId}:${address.toLowerCase()}`;

export async function readDeployBlock(store: Store, chainId: number, address: string): Promise<number | null> {
  const v = await getSetting(store, key(chainId, address));
  return v === null ? null : Number(v);
}

export function writeDeployBlock(store: Store, chainId: number, address: string, block: number): Promise<void> {
  return setSetting(store, key(chainId, address), String(block));
}

/** Every cached deployment block, as `{chainId}:{address}` → block. */
export async function readDeployBlocks(store: Store): Promise<Map<string, number>> {
  const rows = await store.rows<{ key: string; value: string }>(
    'deploy_blocks.list',
    "SELECT key, value FROM settings WHERE starts_with(key, 'deploy_block:')",
  );
  return new Map(rows.map((r) => [r.key.slice('deploy_block:'.length), Number(r.value)]));
}

// `vaultd chains`: each configured vault's chain, address and start block, and whether the
// block was configured or found (the deployment blocks the ingest found and cached, store/deployBlocks.ts).
import { existsSync } from 'node:fs';
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { readDeployBlocks } from '../../store/deployBlocks.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { parseFlags } from '../args.js';
import { CHAINS } from '../commandSpecs.js';

export async function chainsCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(CHAINS, argv);
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  let found = new Map<string, number>();
  // no database yet: nothing found yet (never create one)
  if (existsSync(config.db)) {
    const store = await openStoreWithRetry(createCommon(config), { path: config.db, mustExist: true });
    try {
      found = await readDeployBlocks(store);
    } finally {
      await store.close();
    }
  }
  const rows = config.registry.vaults.map((v) => {
    const chain = config.chains.find((c) => c.chain_id === v.chain_id);
    const address = v.address.toLowerCase();
    const deployed = found.get(`${v.chain_id}:${address}`);
    const floor = typeof chain?.history_from === 'number' ? chain.history_from : 0;
    const [block, source] =
      v.start_block !== undefined
        ? [String(Math.max(v.start_block, floor)), 'configured']
        : deployed !== undefined
          ? [String(Math.max(deployed, floor)), 'found']
          : ['-', 'not yet found'];
    const history = chain?.history_from === undefined ? '' : ` (history_from ${chain.history_from})`;
    return [`${v.chain_id}${chain ? ` (${chain.slug})` : ''}`, address, block, `${source}${history}`];
  });
  const head = ['chain', 'address', 'start_block', 'source'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  process.stdout.write(`${[head, ...rows].map(line).join('\n')}\n`);
  return 0;
}

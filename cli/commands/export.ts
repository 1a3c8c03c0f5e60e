// `vaultd export --db DB --out DIR`: the raw tables as Parquet files plus a manifest, for
// object storage and `recompute --shard … --from DIR` (engine/shards/rawExport.ts).
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { writeRawExport } from '../../engine/shards/rawExport.js';
import { VAULT_TYPES } from '../../families/index.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { parseFlags } from '../args.js';
import { EXPORT } from '../commandSpecs.js';

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(EXPORT, argv);
  if (values.out === undefined || values.out === '') throw new VaultdError('USAGE', 'missing --out DIR: the directory to write the Parquet files into');
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  const common = createCommon(config);
  const out = resolve(values.out);
  const store = await openStoreWithRetry(common, { path: config.db, mustExist: true });
  try {
    const t0 = performance.now();
    await mkdir(out, { recursive: true });
    const m = await writeRawExport(store, out);
    let bytes = 0;
    for (const f of Object.values(m.tables)) bytes += f.bytes;
    process.stdout.write(
      `exported ${Object.keys(m.tables).length} tables (${m.raw.rows.vault_snapshots} snapshot rows, ${m.raw.rows.vault_events} events) to ${out}: ` +
        `${(bytes / 1048576).toFixed(1)} MiB of Parquet, in ${Math.round(performance.now() - t0)} ms\n`,
    );
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
  return 0;
}

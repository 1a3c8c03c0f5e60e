// `vaultd export --db DB --out DIR`: the raw tables as Parquet files plus a manifest, for
// object storage and `recompute --shard … --from DIR` (engine/shards/rawExport.ts).
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeRawExport } from '../../engine/shards/rawExport.js';
import { EXPORT } from '../commandSpecs.js';
import { withStoreOut } from './storeOut.js';

export function exportCommand(argv: string[]): Promise<number> {
  return withStoreOut(EXPORT, argv, 'DIR: the directory to write the Parquet files into', async ({ out: given, store }) => {
    const out = resolve(given);
    const t0 = performance.now();
    await mkdir(out, { recursive: true });
    const m = await writeRawExport(store, out);
    let bytes = 0;
    for (const f of Object.values(m.tables)) bytes += f.bytes;
    process.stdout.write(
      `exported ${Object.keys(m.tables).length} tables (${m.raw.rows.vault_snapshots} snapshot rows, ${m.raw.rows.vault_events} events) to ${out}: ` +
        `${(bytes / 1048576).toFixed(1)} MiB of Parquet, in ${Math.round(performance.now() - t0)} ms\n`,
    );
  });
}

// The raw tables as Parquet, for object storage (`vaultd export`, issue #39): one file per table
// (HUGEINT columns as exact text: store/parquetFiles.ts) and a manifest with each file's rows and
// SHA-256 and the source's stamp. A shard reads such a directory into a scratch database
// (`recompute --shard … --from DIR`); the scratch database's stamp must equal the source's (the
// round trip lost nothing) before anything is computed from it.
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Common } from '../../common/common.js';
import { VaultdError } from '../../common/errors.js';
import { VERSION } from '../../common/version.js';
import { EXPORTED_TABLES, exportTable, importTable, rawSummary } from '../../store/parquetFiles.js';
import { inputStamp } from '../../store/publishIdentity.js';
import { createStore, type Store } from '../../store/store.js';
import { fileSha256, type RawIdentity, type ShardFile } from './shardManifest.js';

export const EXPORT_FORMAT = 'vaultd-export/1';
export const EXPORT_MANIFEST = 'export.json';

export interface ExportManifest {
  format: typeof EXPORT_FORMAT;
  version: string;
  raw: RawIdentity;
  tables: Record<string, ShardFile & { rows: number }>;
  written_at: string;
}

/** Write every exported table of `store` into `dir`, then the manifest (by rename, last). */
export async function writeRawExport(store: Store, dir: string): Promise<ExportManifest> {
  const tables: ExportManifest['tables'] = {};
  for (const t of EXPORTED_TABLES) {
    const name = `${t}.parquet`;
    const temp = join(dir, `.${name}.tmp-${process.pid}`);
    const rows = await exportTable(store, t, temp);
    await rename(temp, join(dir, name));
    tables[t] = { name, rows, ...(await fileSha256(join(dir, name))) };
  }
  const m: ExportManifest = {
    format: EXPORT_FORMAT,
    version: VERSION,
    raw: { stamp: await inputStamp(store), ...(await rawSummary(store)) },
    tables,
    written_at: new Date().toISOString(),
  };
  const temp = join(dir, `.${EXPORT_MANIFEST}.tmp-${process.pid}`);
  await writeFile(temp, `${JSON.stringify(m, null, 1)}\n`);
  await rename(temp, join(dir, EXPORT_MANIFEST));
  return m;
}

/**
 * A scratch database (in a temporary folder, removed by `close`) holding the export in `dir`,
 * checked file by file and, once loaded, by its stamp against the export's.
 */
export async function openRawExport(common: Common, dir: string): Promise<{ store: Store; manifest: ExportManifest; close(): Promise<void> }> {
  let m: ExportManifest;
  try {
    m = JSON.parse(await readFile(join(dir, EXPORT_MANIFEST), 'utf8')) as ExportManifest;
  } catch {
    throw new VaultdError('USAGE', `--from "${dir}" has no readable ${EXPORT_MANIFEST}; name a directory \`vaultd export --out DIR\` wrote`);
  }
  if (m.format !== EXPORT_FORMAT || !m.tables) throw new VaultdError('USAGE', `--from "${dir}": ${EXPORT_MANIFEST} is not a ${EXPORT_FORMAT} manifest`);
  for (const t of EXPORTED_TABLES) {
    const f = m.tables[t];
    const got = f ? await fileSha256(join(dir, f.name)).catch(() => null) : null;
    if (!f || !got || got.sha256 !== f.sha256 || got.bytes !== f.bytes) {
      throw new VaultdError('SHARDS_INVALID', `--from "${dir}": ${f?.name ?? `${t}.parquet`} is ${got ? 'altered' : 'missing'}; export the database again`);
    }
  }
  const scratch = await mkdtemp(join(tmpdir(), 'vaultd-export-'));
  const close = async () => {
    await store.close().catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
  };
  const store = await createStore(common, { path: join(scratch, 'raw.duckdb') });
  try {
    for (const t of EXPORTED_TABLES) await importTable(store, t, join(dir, m.tables[t]!.name));
    const stamp = await inputStamp(store);
    if (stamp !== m.raw.stamp) {
      throw new VaultdError(
        'SHARDS_INVALID',
        `--from "${dir}": the tables read back do not hash to the export's stamp (another vaultd build, or files changed since): export again with this build`,
      );
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { store, manifest: m, close };
}

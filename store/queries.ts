// Small labelled reads the commands need, kept here so cli/ holds no SQL.
import type { Store } from './store.js';

/** Wallets known to the store, most active first (ties by address). */
export async function walletsByActivity(store: Store, limit?: number): Promise<string[]> {
  const rows = await store.rows<{ wallet: string }>(
    'wallets.list',
    `SELECT wallet FROM vault_events GROUP BY wallet ORDER BY count(*) DESC, wallet ${limit ? 'LIMIT $1' : ''}`,
    limit ? [limit] : [],
  );
  return rows.map((r) => r.wallet);
}

/** Whether any hourly snapshot is stored (a warm start serves it before catching up). */
export async function hasSnapshots(store: Store): Promise<boolean> {
  const row = await store.one<{ n: bigint }>('serve.has_snapshots', 'SELECT count(*) AS n FROM (SELECT 1 FROM vault_snapshots LIMIT 1)');
  return (row?.n ?? 0n) > 0n;
}

/** Write everything the write-ahead log holds into the file itself (a finished build leaves no log beside it). */
export async function checkpointFile(store: Store): Promise<void> {
  await store.run('demo.checkpoint', 'CHECKPOINT');
}

/** The rows a full recompute's load streams, about: snapshots, events and prices (the small tables aside). */
export async function inputRows(store: Store): Promise<number> {
  const row = await store.one<{ n: number }>(
    'recompute.input_rows',
    'SELECT ((SELECT count(*) FROM vault_snapshots) + (SELECT count(*) FROM vault_events) + (SELECT count(*) FROM prices))::DOUBLE AS n',
  );
  return row?.n ?? 0;
}

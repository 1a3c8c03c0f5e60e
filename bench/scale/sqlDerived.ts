// The scale bench's SQL-only baselines for the activity and positions tables (issue #9), run as
// a child process (its own peak RSS) on a database `vaultd recompute --full` has written:
//   node dist/bench/scale/sqlDerived.js <db>   → one JSON line on stdout
// The SQL twin's unit prices (bench/series/sqlTwin.ts) are computed first: the metrics baseline
// (sqlBaseline.ts, another process) times them, so here they are setup, reported and not counted.
// Then the activity deltas (sqlActivity.ts) and the positions (sqlPositions.ts), each timed and
// compared with vaultd's table, EXCEPT ALL both ways over every column.
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createLogger } from '../../common/logger.js';
import { dropSqlTwin, runSqlTwin } from '../series/sqlTwin.js';
import { createStore, type Store } from '../../store/store.js';
import { diffTables, type TableDiff } from './diffTables.js';
import { ACTIVITY_COLUMNS, createSqlActivity } from './sqlActivity.js';
import { createSqlPositions, POSITION_COLUMNS, type SqlPositionsResult } from './sqlPositions.js';

export interface SqlDerivedResult {
  /** the twin's run here (setup: the metrics baseline counts its prices and APY) */
  twin_ms: { prices: number; apy: number; rollups: number };
  activity: { ms: number; diff: TableDiff; columns: string };
  positions: SqlPositionsResult & { diff: TableDiff; columns: string };
  /** activity + positions */
  total_ms: number;
  /** rows only in one of the two tables, over both tables */
  mismatches: number;
}

/** The twin, then both tables by SQL alone, each compared with vaultd's (the store stays open). */
export async function compareDerivedTables(store: Store): Promise<SqlDerivedResult> {
  const twin = await runSqlTwin(store);
  const t0 = performance.now();
  await createSqlActivity(store, 'sql_activity_deltas');
  const activityMs = Math.round(performance.now() - t0);
  const activityDiff = await diffTables(store, 'activity_deltas', 'sql_activity_deltas', ACTIVITY_COLUMNS);
  const positions = await createSqlPositions(store, 'sql_positions');
  const positionsDiff = await diffTables(store, 'positions', 'sql_positions', POSITION_COLUMNS);
  await dropSqlTwin(store);
  return {
    twin_ms: { prices: Math.round(twin.prices), apy: Math.round(twin.apy), rollups: Math.round(twin.rollups) },
    activity: { ms: activityMs, diff: activityDiff, columns: ACTIVITY_COLUMNS },
    positions: { ...positions, diff: positionsDiff, columns: POSITION_COLUMNS },
    total_ms: activityMs + positions.total_ms,
    mismatches: activityDiff.only_a + activityDiff.only_b + positionsDiff.only_a + positionsDiff.only_b,
  };
}

export async function sqlDerivedBaseline(db: string): Promise<SqlDerivedResult> {
  const common = createCommon(loadConfig(VAULT_TYPES, {}, {}), { logger: createLogger('warn') });
  const store = await createStore(common, { path: db, mustExist: true });
  try {
    return await compareDerivedTables(store);
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
}

if (process.argv[1]?.endsWith('sqlDerived.js')) {
  const db = process.argv[2];
  if (!db) {
    console.error('usage: node dist/bench/scale/sqlDerived.js <db>');
    process.exit(2);
  }
  sqlDerivedBaseline(db).then(
    (out) => process.stdout.write(`${JSON.stringify(out)}\n`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

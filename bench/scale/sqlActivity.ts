// The activity table computed by DuckDB SQL alone (issue #9's scale bench): one CREATE TABLE …
// AS SELECT over vault_events, vaults and the SQL twin's unit prices (bench/series/sqlTwin.ts,
// twin_prices) giving the rows of activity_deltas — the key, the numeraire's decimals and the
// signed share and asset deltas in base units (DESIGN §4.6, engine/activity/activityRows.ts
// rowDeltas) — and the comparison with the table `vaultd recompute` wrote (EXCEPT ALL both ways).
// A transfer's or foreign-token row's assets are its shares × the unit price of the as-of
// snapshot (the latest with ts ≤ the row's; 1.0 before any), truncated toward zero at the
// numeraire's decimals (DESIGN §4.4, marketValue.ts): the product has up to 76 digits, so it is
// formed exactly in 32-bit limbs (sqlLimbs.ts); a delta outside HUGEINT is NULL, as vaultd writes it.
import type { Store } from '../../store/store.js';
import { Layers, marketValue } from './sqlLimbs.js';

const MIN_HUGEINT = "'-170141183460469231731687303715884105728'::HUGEINT";
/** −x, NULL where it leaves HUGEINT (x = −2^127) */
const negated = (x: string) => `CASE WHEN ${x} = ${MIN_HUGEINT} THEN NULL ELSE -${x} END`;

export const ACTIVITY_COLUMNS = 'chain_id, block_number, log_index, sub_index, decimals, shares_delta, assets_delta';

/** Rows of registered vaults, with what the delta rules read. */
const EVENTS = `
SELECT e.chain_id, e.block_number, e.log_index, e.sub_index, v.numeraire_decimals AS decimals, e.vault_id,
       epoch(e.ts) AS t, e.kind, e.request_hash IS NULL AS sync,
       lower(e.token) <> lower(v.numeraire_address) AS fgn, e.assets AS a, e.shares AS s
  FROM vault_events e JOIN vaults v USING (vault_id)`;

/** Rows whose assets are a market value: transfers, and a foreign token's sync deposit or any withdraw. */
const VALUED = `(kind IN ('transfer_in', 'transfer_out') OR (fgn AND ((kind = 'deposit' AND sync) OR kind = 'withdraw')))`;

const SHARES_DELTA = `CASE kind
  WHEN 'deposit' THEN s
  WHEN 'withdraw' THEN CASE WHEN sync THEN ${negated('s')} ELSE 0 END
  WHEN 'withdraw_pending' THEN ${negated('s')}
  WHEN 'withdraw_refunded' THEN s
  WHEN 'transfer_in' THEN s
  WHEN 'transfer_out' THEN ${negated('s')}
  ELSE 0 END::HUGEINT`;

/** Assets of rows that are not VALUED (the async deposit's terminal row moved its assets at the request). */
const PLAIN_ASSETS_DELTA = `CASE kind
  WHEN 'deposit' THEN CASE WHEN sync THEN a ELSE 0 END
  WHEN 'deposit_pending' THEN CASE WHEN fgn THEN 0 ELSE a END
  WHEN 'deposit_refunded' THEN CASE WHEN fgn THEN 0 ELSE ${negated('a')} END
  WHEN 'withdraw' THEN ${negated('a')}
  ELSE 0 END::HUGEINT`;

function activitySql(table: string): string {
  const valued = new Layers();
  marketValue(valued, 's', 'p', 'decimals', `kind IN ('transfer_out', 'withdraw')`, 'mv');
  const priced = `
    SELECT e.*, coalesce(p.unit_price, 1000000000000000000::HUGEINT) AS p
      FROM (SELECT * FROM events WHERE ${VALUED}) e
      ASOF LEFT JOIN (SELECT vault_id, t::DOUBLE AS pt, unit_price FROM twin_prices) p ON e.vault_id = p.vault_id AND e.t >= p.pt`;
  return `
CREATE OR REPLACE TEMP TABLE ${table} AS
WITH events AS (${EVENTS})
SELECT chain_id, block_number, log_index, sub_index, decimals, ${SHARES_DELTA} AS shares_delta, ${PLAIN_ASSETS_DELTA} AS assets_delta
  FROM events WHERE NOT ${VALUED}
UNION ALL
${valued.sql(priced, `chain_id, block_number, log_index, sub_index, decimals, ${SHARES_DELTA} AS shares_delta, mv AS assets_delta`)}`;
}

/** Create `table` (TEMP) with the activity deltas by SQL alone; needs runSqlTwin's twin_prices. */
export async function createSqlActivity(store: Store, table = 'sql_activity_deltas'): Promise<void> {
  await store.run('bench.sql_activity', activitySql(table));
}

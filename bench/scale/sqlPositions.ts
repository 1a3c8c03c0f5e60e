// The positions table computed by DuckDB SQL alone (issue #9's scale bench): the average-cost
// replay of DESIGN §4.4 (engine/positions/replayPosition.ts, valued as positionMetrics.ts emits
// it) as a recursive CTE over each position's rows in (block_number, log_index, sub_index)
// order — every position advances one row an iteration, its state keyed by position (USING KEY)
// — with the replay's skip rules for corrupt rows and async requests matched by request hash
// (open requests in MAPs). Every column of `positions` is computed and compared:
//   shares_owned, pending_deposit_assets, pending_redeem_shares — HUGEINT sums;
//   cost_basis_native/usd, realized_native/usd — the replay's fixed point, exactly: cost C·F
//     (F = 10^max(30, 36 − decimals)) and C_usd·F in 32-bit limbs (sqlLimbs.ts), a partial
//     disposal's basis ⌊C·s / (S + Pr)⌋ by long division; realized from the identity
//     R·F = F·(Σ disposal assets − Σ acquisition costs) + C·F (and the same in USD), which
//     needs no signed limbs; rounded as vaultd emits them (native toward zero, USD half-even);
//   position_id (order of first appearance in (ts, chain, block, log, sub) order over all
//     events), wallet, vault_id, updated_at (the vault's latest valid snapshot).
// Bounds (the query raises past them, never a wrong value): S + Pr below 2^95 at a partial
// disposal (4·10^10 whole shares), C·F below 2^256, C_usd·F below 2^384, market values and the
// sums of shares and assets within HUGEINT; a foreign-token async redeem settles the shares of
// its hash's latest request (checked against the escrow). Not reproduced: a price table with
// two rows at one ts for a token (vaultd's as-of is then unspecified).
import type { Store } from '../../store/store.js';
import {
  add,
  compare,
  divide,
  dividePow10,
  fromHugeint,
  halfEven,
  Layers,
  limb,
  marketValue,
  multiply,
  subtract,
  toHugeintOrRaise,
  type Limbs,
} from './sqlLimbs.js';

const POW10_HUGEINT = `[${Array.from({ length: 39 }, (_, t) => `${10n ** BigInt(t)}::HUGEINT`).join(', ')}]`;
const PRICE_MAX_AGE_S = 48 * 3600;

/** State limbs: cost C·F, USD cost C_usd·F, and the sums Σ disposal a·u and Σ acquisition a·u_cost. */
const C: Limbs = { name: 'c', n: 8 };
const CU: Limbs = { name: 'cu', n: 12 };
const PU: Limbs = { name: 'pu', n: 9 };
const QU: Limbs = { name: 'qu', n: 9 };
const limbNames = (a: Limbs) => Array.from({ length: a.n }, (_, i) => limb(a, i));
const STATE_LIMBS = [C, CU, PU, QU].flatMap(limbNames);
const OPEN_DEPOSITS = 'MAP(VARCHAR, STRUCT(a HUGEINT, f BOOLEAN, u HUGEINT))';
const OPEN_REDEEMS = 'MAP(VARCHAR, HUGEINT)';
const STATE = ['pos', 'k', 'sh', 'pr', 'pd', 'net', 'usd_ok', 'od', 'rq', 'skipped', ...STATE_LIMBS];

/** Positions (every (wallet, vault) of the events) numbered in order of first appearance, as vaultd numbers them. */
const IDS_SQL = (t: string) => `
CREATE OR REPLACE TEMP TABLE ${t}_ids AS
SELECT wallet, vault_id, row_number() OVER (ORDER BY first) AS position_id
  FROM (SELECT wallet, vault_id, min({'t': ts, 'c': chain_id, 'b': block_number, 'l': log_index, 's': sub_index}) AS first
          FROM vault_events GROUP BY wallet, vault_id)`;

/**
 * The valued positions' rows, numbered k = 1.. in replay order, with what the replay reads:
 * the unit price and USD price as of the row (48 h rule; a negative price counts as none), the
 * market value of the row's shares where it may be needed, and for a redeem settlement the
 * shares of its hash's latest request and their market value.
 */
function rowsSql(t: string): string {
  const valued = new Layers();
  marketValue(valued, 's', 'p', 'd', 'false', 'mv');
  marketValue(valued, 'coalesce(esc_s, 0::HUGEINT)', 'p', 'd', 'false', 'mv_esc');
  return `
CREATE OR REPLACE TEMP TABLE ${t}_vaults AS
WITH snap AS (
  SELECT vault_id, max(ts) AS now FROM vault_snapshots WHERE total_assets >= 0 AND total_supply >= 0 GROUP BY vault_id),
tokens AS (SELECT DISTINCT chain_id, lower(address) AS numeraire FROM prices)
SELECT v.vault_id, v.chain_id, lower(v.numeraire_address) AS numeraire, v.numeraire_decimals AS d,
       greatest(30, 36 - v.numeraire_decimals) AS fine, snap.now, tokens.numeraire IS NOT NULL AS priced
  FROM vaults v JOIN snap USING (vault_id)
  LEFT JOIN tokens ON tokens.chain_id = v.chain_id AND tokens.numeraire = lower(v.numeraire_address);
CREATE OR REPLACE TEMP TABLE ${t}_rows AS
WITH r AS (
  SELECT i.position_id AS pos,
         row_number() OVER (PARTITION BY i.position_id ORDER BY e.block_number, e.log_index, e.sub_index, e.ts, e.chain_id) AS k,
         epoch(e.ts) AS t, e.vault_id, v.chain_id AS vchain, v.numeraire, v.d, v.fine, e.kind, e.request_hash IS NULL AS sync,
         e.request_hash AS req, lower(e.token) <> v.numeraire AS fgn, e.assets AS a, e.shares AS s
    FROM vault_events e JOIN ${t}_ids i USING (wallet, vault_id) JOIN ${t}_vaults v USING (vault_id)),
esc AS (
  SELECT *, CASE WHEN kind = 'withdraw' AND NOT sync THEN last_value(CASE WHEN kind = 'withdraw_pending' THEN s END IGNORE NULLS)
              OVER (PARTITION BY pos, req ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) END AS esc_s
    FROM r),
usd AS (
  SELECT chain_id, lower(address) AS numeraire, epoch(ts) AS pt, CASE WHEN usd >= 0 THEN replace(usd::VARCHAR, '.', '')::HUGEINT END AS u
    FROM prices QUALIFY address = max(address) OVER (PARTITION BY chain_id, lower(address))),
priced AS (
  SELECT r.*, CASE WHEN r.t - x.pt <= ${PRICE_MAX_AGE_S} THEN x.u END AS u
    FROM esc r ASOF LEFT JOIN usd x ON x.chain_id = r.vchain AND x.numeraire = r.numeraire AND r.t >= x.pt),
valued AS (
  SELECT r.*, coalesce(p.unit_price, 1000000000000000000::HUGEINT) AS p
    FROM (SELECT * FROM priced WHERE kind IN ('transfer_in', 'transfer_out') OR fgn) r
    ASOF LEFT JOIN (SELECT vault_id, t::DOUBLE AS pt, unit_price FROM twin_prices) p ON r.vault_id = p.vault_id AND r.t >= p.pt)
SELECT pos, k, d, fine, kind, sync, req, fgn, a, s, u, esc_s, NULL::HUGEINT AS mv, NULL::HUGEINT AS mv_esc
  FROM priced WHERE NOT (kind IN ('transfer_in', 'transfer_out') OR fgn)
UNION ALL
${valued.sql('SELECT * FROM valued', 'pos, k, d, fine, kind, sync, req, fgn, a, s, u, esc_s, mv, mv_esc')}`;
}

/** One replay step: the state of every position in `st` after its row k + 1. */
function stepSql(t: string): string {
  const q = new Layers();
  q.let(`CASE WHEN req IS NOT NULL THEN od[req] END AS odh`, `CASE WHEN req IS NOT NULL THEN rq[req] END AS rqh`, 'sh + pr AS held');
  // replayPosition.ts applyKind: which rows apply (the rest are skipped as corrupt)
  q.let(`CASE kind
      WHEN 'deposit' THEN s > 0 AND CASE WHEN sync THEN a > 0 ELSE odh IS NOT NULL END
      WHEN 'deposit_pending' THEN req IS NOT NULL AND a > 0 AND odh IS NULL
      WHEN 'deposit_refunded' THEN req IS NOT NULL AND odh IS NOT NULL
      WHEN 'withdraw' THEN a >= 0 AND CASE WHEN sync THEN s > 0 AND s <= sh ELSE rqh IS NOT NULL END
      WHEN 'withdraw_pending' THEN req IS NOT NULL AND s > 0 AND s <= sh AND rqh IS NULL
      WHEN 'withdraw_refunded' THEN req IS NOT NULL AND rqh IS NOT NULL
      WHEN 'transfer_in' THEN s > 0
      WHEN 'transfer_out' THEN s > 0 AND s <= sh
      ELSE false END AS applied`);
  q.let(
    `applied AND kind IN ('deposit', 'transfer_in') AS acq`,
    `applied AND kind IN ('withdraw', 'transfer_out') AS disp`,
    `kind = 'withdraw' AND NOT sync AS settle`,
    // every applied row needs a USD price, else the USD legs are null from then on
    `usd_ok AND (NOT applied OR u IS NOT NULL) AS usd2`,
  );
  const mvOrRaise = (x: string) => `coalesce(${x}, error('sql positions: a market value outside HUGEINT'))`;
  q.let(
    // acquisition cost: a sync deposit's assets (a foreign token's market value), a settlement's request assets
    // (a foreign request's market value at settlement), a transfer's market value
    `CASE WHEN NOT acq THEN 0::HUGEINT WHEN kind = 'transfer_in' THEN ${mvOrRaise('mv')}
          WHEN sync THEN CASE WHEN fgn THEN ${mvOrRaise('mv')} ELSE a END
          WHEN odh.f THEN ${mvOrRaise('mv')} ELSE odh.a END AS a_acq`,
    `CASE WHEN NOT disp THEN 0::HUGEINT WHEN kind = 'transfer_out' THEN ${mvOrRaise('mv')}
          WHEN NOT fgn THEN a
          WHEN NOT settle THEN ${mvOrRaise('mv')}
          WHEN rqh = esc_s THEN ${mvOrRaise('mv_esc')}
          ELSE error('sql positions: a foreign-token redeem settles other shares than its request''s latest') END AS a_disp`,
    `CASE WHEN settle THEN rqh ELSE s END AS ds`,
  );
  q.let(
    `a_acq + a_disp AS amt`,
    `CASE WHEN NOT usd2 THEN 0::HUGEINT WHEN acq THEN CASE WHEN kind = 'deposit' AND NOT sync THEN odh.u ELSE u END WHEN disp THEN u ELSE 0::HUGEINT END AS uu`,
    `disp AND ds = held AS full_exit`,
    `disp AND ds <> held AS partial`,
    `${POW10_HUGEINT}[fine + 1] AS f`,
  );
  q.let(`CASE WHEN partial THEN held ELSE 1::HUGEINT END AS hdiv`, `CASE WHEN partial THEN ds ELSE 0::HUGEINT END AS mby`);
  const A = fromHugeint(q, 'amt', 'la');
  const F = fromHugeint(q, 'f', 'lf');
  const U = fromHugeint(q, 'uu', 'lu');
  const S = fromHugeint(q, 'mby', 'ls');
  const AU = multiply(q, A, U, 'au'); // 8: a·u of the row (0 unless USD is complete)
  // each sum takes only its own rows' terms (a term of another kind could overflow a sum it never enters)
  const only = (a: Limbs, when: string, name: string): Limbs => {
    q.let(...limbNames(a).map((_, i) => `CASE WHEN ${when} THEN ${limb(a, i)} ELSE 0 END AS ${name}${i}`));
    return { name, n: a.n };
  };
  const AUacq = only(AU, 'acq', 'aua');
  const AUdisp = only(AU, 'disp', 'aud');
  const AF = multiply(q, only(A, 'acq', 'laa'), F, 'af'); // 8: an acquisition's cost · F
  const AUF = multiply(q, AUacq, F, 'auf'); // 12
  // a partial disposal's basis b = ⌊C·s / (S + Pr)⌋ (DESIGN §4.4; 0 for other rows: s = 0, divisor 1)
  const B = divide(q, multiply(q, C, S, 'cs'), 'hdiv', 'b'); // 12
  const BU = divide(q, multiply(q, CU, S, 'us'), 'hdiv', 'bu'); // 16
  const cAdd = add(q, C, AF, 'cadd', C.n);
  const cSub = subtract(q, C, B, 'csub', C.n);
  const uAdd = add(q, CU, AUF, 'uadd', CU.n);
  const uSub = subtract(q, CU, BU, 'usub', CU.n);
  const pAdd = add(q, PU, AUdisp, 'padd', PU.n);
  const qAdd = add(q, QU, AUacq, 'qadd', QU.n);
  const pick = (a: Limbs, i: number, cases: string) => `${cases} AS ${limb(a, i)}`;
  const next = [
    'pos',
    'k + 1 AS k',
    `sh + CASE WHEN NOT applied THEN 0 WHEN kind IN ('deposit', 'transfer_in') THEN s
               WHEN kind = 'transfer_out' OR (kind = 'withdraw' AND sync) OR kind = 'withdraw_pending' THEN -s
               WHEN kind = 'withdraw_refunded' THEN rqh ELSE 0 END AS sh`,
    `pr + CASE WHEN NOT applied THEN 0 WHEN kind = 'withdraw_pending' THEN s WHEN settle OR kind = 'withdraw_refunded' THEN -rqh ELSE 0 END AS pr`,
    `pd + CASE WHEN NOT applied THEN 0 WHEN kind = 'deposit_pending' THEN CASE WHEN fgn THEN 0 ELSE a END
               WHEN (kind = 'deposit' AND NOT sync) OR kind = 'deposit_refunded' THEN -odh.a ELSE 0 END AS pd`,
    'net + a_disp - a_acq AS net',
    'usd2 AS usd_ok',
    `CASE WHEN NOT applied THEN od
          WHEN kind = 'deposit_pending' THEN map_concat(od, MAP([req], [{'a': CASE WHEN fgn THEN 0::HUGEINT ELSE a END, 'f': fgn, 'u': CASE WHEN usd2 THEN u END}]))
          WHEN (kind = 'deposit' AND NOT sync) OR kind = 'deposit_refunded' THEN map_concat(od, MAP([req], [NULL::STRUCT(a HUGEINT, f BOOLEAN, u HUGEINT)]))
          ELSE od END AS od`,
    `CASE WHEN NOT applied THEN rq
          WHEN kind = 'withdraw_pending' THEN map_concat(rq, MAP([req], [s]))
          WHEN settle OR kind = 'withdraw_refunded' THEN map_concat(rq, MAP([req], [NULL::HUGEINT]))
          ELSE rq END AS rq`,
    `skipped + CASE WHEN applied THEN 0 ELSE 1 END AS skipped`,
    ...limbNames(C).map((_, i) =>
      pick(C, i, `CASE WHEN acq THEN ${limb(cAdd, i)} WHEN full_exit THEN 0 WHEN partial THEN ${limb(cSub, i)} ELSE ${limb(C, i)} END`),
    ),
    ...limbNames(CU).map((_, i) =>
      pick(
        CU,
        i,
        `CASE WHEN NOT usd2 THEN ${limb(CU, i)} WHEN acq THEN ${limb(uAdd, i)} WHEN full_exit THEN 0 WHEN partial THEN ${limb(uSub, i)} ELSE ${limb(CU, i)} END`,
      ),
    ),
    ...limbNames(PU).map((_, i) => pick(PU, i, `CASE WHEN usd2 AND disp THEN ${limb(pAdd, i)} ELSE ${limb(PU, i)} END`)),
    ...limbNames(QU).map((_, i) => pick(QU, i, `CASE WHEN usd2 AND acq THEN ${limb(qAdd, i)} ELSE ${limb(QU, i)} END`)),
  ];
  const from = `SELECT st.*, r.kind, r.sync, r.req, r.fgn, r.a, r.s, r.u, r.esc_s, r.mv, r.mv_esc, r.fine
                  FROM st JOIN ${t}_rows r ON r.pos = st.pos AND r.k = st.k + 1`;
  return q.sql(from, next.join(',\n    '));
}

/** The replay's end state as the positions table's columns (positionMetrics.ts). */
function valuesSql(t: string): string {
  const q = new Layers();
  q.let(`${POW10_HUGEINT}[fine + 1] AS f`, 'd + fine + 12 AS ku');
  // native: cost = ⌊C·F / F⌋, realized = trunc((F·net + C·F) / F)
  const { quotient: cq, remainders } = dividePow10(q, C, 'fine', 4, 'cq');
  q.let(`${toHugeintOrRaise(cq, 'a cost basis')} AS cost`, `${remainders.map((r) => `${r.col} <> 0`).join(' OR ')} AS cost_frac`);
  q.let('net + cost AS kk');
  q.let('kk + CASE WHEN kk < 0 AND cost_frac THEN 1 ELSE 0 END AS realized');
  // USD: half-even at 6 places of C_usd·F and of F·(Σ disposal a·u − Σ acquisition a·u) + C_usd·F (zeros when not usd_ok)
  const zeroUnlessUsd = (a: Limbs, name: string): Limbs => {
    q.let(...limbNames(a).map((_, i) => `CASE WHEN usd_ok THEN ${limb(a, i)} ELSE 0 END AS ${name}${i}`));
    return { name, n: a.n };
  };
  const cu = zeroUnlessUsd(CU, 'zc');
  const pu = zeroUnlessUsd(PU, 'zp');
  const qu = zeroUnlessUsd(QU, 'zq');
  const F = fromHugeint(q, 'f', 'lf');
  const costUsd = halfEven(q, cu, 'ku', 9, 'hc', 'a USD cost basis');
  q.let(`${costUsd} AS cost_usd`);
  const plus = add(q, multiply(q, pu, F, 'pf'), cu, 'vp', 14);
  const minus = multiply(q, qu, F, 'qf'); // 13
  q.let(`${compare(plus, minus)} AS sgn`);
  const big: Limbs = { name: 'mx', n: 14 };
  const small: Limbs = { name: 'mn', n: 14 };
  q.let(
    ...limbNames(big).map((_, i) => `CASE WHEN sgn >= 0 THEN ${limb(plus, i)} ELSE ${limb(minus, i)} END AS ${limb(big, i)}`),
    ...limbNames(small).map((_, i) => `CASE WHEN sgn >= 0 THEN ${limb(minus, i)} ELSE ${limb(plus, i)} END AS ${limb(small, i)}`),
  );
  const magnitude = subtract(q, big, small, 'rm', 14);
  const realizedUsd = halfEven(q, magnitude, 'ku', 9, 'hr', 'a USD realized PnL');
  q.let(`CASE WHEN sgn < 0 THEN -${realizedUsd} ELSE ${realizedUsd} END AS realized_usd`);
  const from = `SELECT s.*, i.wallet, i.vault_id, v.d, v.fine, v.now
                  FROM ${t}_state s JOIN ${t}_ids i ON i.position_id = s.pos JOIN ${t}_vaults v USING (vault_id)`;
  return q.sql(
    from,
    `pos AS position_id, wallet, vault_id, vaultd_units(sh, 18) AS shares_owned, vaultd_units(cost, d) AS cost_basis_native,
     CASE WHEN usd_ok THEN vaultd_units(cost_usd, 6) END AS cost_basis_usd, vaultd_units(realized, d) AS realized_native,
     CASE WHEN usd_ok THEN vaultd_units(realized_usd, 6) END AS realized_usd, vaultd_units(pd, d) AS pending_deposit_assets,
     vaultd_units(pr, 18) AS pending_redeem_shares, now AS updated_at`,
  );
}

/** The statements in order, by stage: number the positions, lay out their rows, replay, value. */
export const __stages = (t: string) => positionsStages(t);
function positionsStages(t: string): [stage: 'rows' | 'replay' | 'values', sql: string][] {
  const zeros = STATE_LIMBS.map((c) => `0::BIGINT AS ${c}`).join(', ');
  return [
    ['rows', `${IDS_SQL(t)};\n${rowsSql(t)}`],
    [
      'replay',
      `CREATE OR REPLACE TEMP TABLE ${t}_state AS
WITH RECURSIVE st(${STATE.join(', ')}) USING KEY (pos) AS (
  SELECT i.position_id AS pos, 0::BIGINT AS k, 0::HUGEINT AS sh, 0::HUGEINT AS pr, 0::HUGEINT AS pd, 0::HUGEINT AS net,
         v.priced AS usd_ok, MAP([], [])::${OPEN_DEPOSITS} AS od, MAP([], [])::${OPEN_REDEEMS} AS rq, 0::BIGINT AS skipped, ${zeros}
    FROM ${t}_ids i JOIN ${t}_vaults v USING (vault_id)
  UNION
  ${stepSql(t)}
)
SELECT * FROM st`,
    ],
    ['values', `CREATE OR REPLACE TEMP TABLE ${t} AS ${valuesSql(t)}`],
  ];
}

export const POSITION_COLUMNS =
  'position_id, wallet, vault_id, shares_owned, cost_basis_native, cost_basis_usd, realized_native, realized_usd, pending_deposit_assets, pending_redeem_shares, updated_at';

export interface SqlPositionsResult {
  /** wall time of each stage: the rows laid out (ids, prices, market values), the replay, the emitted values */
  stages_ms: { rows: number; replay: number; values: number };
  total_ms: number;
  positions: number;
  /** rows the replay skipped as corrupt (vaultd's recompute prints the same count) */
  skipped_rows: number;
  /** replay iterations: the most rows of one position */
  iterations: number;
}

/** Create `table` (TEMP) with the positions by SQL alone, and its helper tables `${table}_*`; needs runSqlTwin's twin_prices. */
export async function createSqlPositions(store: Store, table = 'sql_positions'): Promise<SqlPositionsResult> {
  const stages = { rows: 0, replay: 0, values: 0 };
  for (const [stage, sql] of positionsStages(table)) {
    const t0 = performance.now();
    await store.run(`bench.sql_positions.${stage}`, sql);
    stages[stage] = Math.round(performance.now() - t0);
  }
  const row = await store.one<{ positions: bigint; skipped: bigint | null; iterations: bigint | null }>(
    'bench.sql_positions.stats',
    `SELECT count(*) AS positions, sum(skipped) AS skipped, max(k) AS iterations FROM ${table}_state`,
  );
  return {
    stages_ms: stages,
    total_ms: stages.rows + stages.replay + stages.values,
    positions: Number(row!.positions),
    skipped_rows: Number(row!.skipped ?? 0),
    iterations: Number(row!.iterations ?? 0),
  };
}

export async function dropSqlPositions(store: Store, table = 'sql_positions'): Promise<void> {
  await store.run('bench.sql_positions.drop', ['', '_ids', '_vaults', '_rows', '_state'].map((s) => `DROP TABLE IF EXISTS ${table}${s}`).join('; '));
}

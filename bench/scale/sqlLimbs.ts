// Exact integer arithmetic past HUGEINT for the scale bench's SQL-only baselines, generated as
// plain SQL: the position replay's fixed point (DESIGN §4.4, §4.8) needs 60–120 digit numbers.
// DuckDB's exact types stop at 38 digits (HUGEINT, DECIMAL(38, s)); BIGNUM is unbounded but has
// only +, − and sum (BIGNUM × BIGNUM silently becomes a DOUBLE), and list lambdas cost tens of
// µs a row. So a number is a fixed set of columns of 24-bit limbs (BIGINT, least significant
// first), and each operation is a few projection layers of BIGINT arithmetic: a limb product is
// below 2^48, so products, column sums and carries never leave BIGINT (measured here: a BIGINT
// operation ~1 ns a value, a HUGEINT multiply ~30 ns, a HUGEINT shift or mask ~45 ns, a HUGEINT
// division ~2 µs). Division by a HUGEINT takes one 24-bit digit a step, estimated in DOUBLE and
// corrected by one exact HUGEINT step (so the divisor must stay below 2^103, and the query raises
// past it rather than give a wrong digit); division by 10^k takes nine digits a step in BIGINTs.
// Every result that could leave its columns is checked.

export const LIMB_BITS = 24;
const MASK = String((1 << LIMB_BITS) - 1);
const BASE = String(1 << LIMB_BITS);
/** Largest divisor `divide` takes (exclusive): remainder · 2^24 + limb must stay below 2^127. */
export const DIVISOR_LIMIT = 1n << 103n;
/** Limbs a HUGEINT takes (127 bits). */
export const HUGEINT_LIMBS = 6;
const MIN_HUGEINT = "'-170141183460469231731687303715884105728'::HUGEINT";
const POW10_BIGINT = `[${Array.from({ length: 10 }, (_, t) => `${10 ** t}::BIGINT`).join(', ')}]`;

/** A number held in columns `${name}0` … `${name}${n − 1}`. */
export interface Limbs {
  readonly name: string;
  readonly n: number;
}

/** Limb i of `a` as SQL (0 past its top). */
export const limb = (a: Limbs, i: number): string => (i < a.n ? `${a.name}${i}` : '0::BIGINT');

/** A query as projection layers over a FROM: each layer adds columns the next ones read, so a value is computed once. */
export class Layers {
  private readonly layers: string[][] = [];

  /** Add a layer of `expr AS name` definitions (an empty call adds nothing). */
  let(...defs: string[]): this {
    if (defs.length > 0) this.layers.push(defs);
    return this;
  }

  get depth(): number {
    return this.layers.length;
  }

  /**
   * `SELECT *, … FROM (…)` for each layer over `from` (a SELECT), then `select` on top. Unless
   * `select` is `*`, a definition nothing above reads is left out and a column is dropped
   * (EXCLUDE) after the last layer that reads it: every layer is a projection DuckDB rebuilds
   * for each iteration of a recursive CTE, so hundreds of carried columns cost more than the
   * arithmetic. Reads are found by name (a word in an expression), which may keep too much,
   * never too little.
   */
  sql(from: string, select = '*'): string {
    const defs = this.layers.map((layer) => layer.map((d) => ({ d, name: /\bAS\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/s.exec(d)?.[1] ?? null })));
    const words = (sql: string) => new Set(sql.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
    const all = select.trim() === '*';
    // top-down: what each layer must leave for the layers above it (and which of its definitions are read)
    const liveAfter: Set<string>[] = [];
    const kept: (typeof defs)[number][] = [];
    let live = words(select);
    for (let i = defs.length - 1; i >= 0; i--) {
      liveAfter[i] = live;
      kept[i] = all ? defs[i]! : defs[i]!.filter((x) => x.name === null || live.has(x.name));
      const below = new Set(live);
      for (const x of kept[i]!) if (x.name) below.delete(x.name);
      for (const x of kept[i]!) for (const w of words(x.d)) below.add(w);
      live = below;
    }
    // bottom-up: each layer drops the intermediate columns nothing above it reads
    let q = from;
    const present = new Set<string>();
    defs.forEach((_, i) => {
      const drop = all ? [] : [...present].filter((n) => !liveAfter[i]!.has(n));
      for (const n of drop) present.delete(n);
      for (const x of kept[i]!) if (x.name) present.add(x.name);
      if (kept[i]!.length === 0 && drop.length === 0) return;
      const star = drop.length > 0 ? `* EXCLUDE (${drop.join(', ')})` : '*';
      q = `SELECT ${star}${kept[i]!.length > 0 ? `, ${kept[i]!.map((x) => x.d).join(', ')}` : ''} FROM (${q})`;
    });
    return `SELECT ${select} FROM (${q})`;
  }
}

/** Limbs of a HUGEINT expression x ≥ 0: three 48-bit BIGINT pieces (the only HUGEINT shifts), then their halves. */
export function fromHugeint(q: Layers, x: string, name: string): Limbs {
  const piece = (k: number) => `${name}_h${k}`;
  q.let(...[0, 1, 2].map((k) => `((${x} >> ${48 * k}) & 281474976710655)::BIGINT AS ${piece(k)}`));
  q.let(...[0, 1, 2, 3, 4, 5].map((i) => `${i % 2 === 0 ? `${piece(i >> 1)} & ${MASK}` : `${piece(i >> 1)} >> ${LIMB_BITS}`} AS ${name}${i}`));
  return { name, n: HUGEINT_LIMBS };
}

/**
 * Carry propagation: BIGINT column expressions (any sign, |c| < 2^62; a borrow is a carry of
 * −1: >> is arithmetic, & two's complement) into n limbs. A value left over past n limbs, or a
 * negative one, raises `what` — folded into the top limb so no query can skip the check.
 */
export function normalize(q: Layers, cols: readonly string[], name: string, n: number, what: string): Limbs {
  const t = (i: number) => `${name}_t${i}`;
  for (let i = 0; i <= n; i++) {
    const defs: string[] = [];
    if (i < n) defs.push(`(${i < cols.length ? cols[i] : '0'})::BIGINT${i > 0 ? ` + (${t(i - 1)} >> ${LIMB_BITS})` : ''} AS ${t(i)}`);
    if (i > 0) {
      const value = `${t(i - 1)} & ${MASK}`;
      // the top limb carries the checks: nothing may be left, and the columns past n must be zero
      const past = cols.slice(n).map((c) => `(${c}) <> 0`);
      const check = i === n ? [`(${t(n - 1)} >> ${LIMB_BITS}) <> 0`, ...past].join(' OR ') : null;
      defs.push(
        check
          ? `CASE WHEN ${check} THEN error('exact SQL: ${what} outside ${LIMB_BITS * n} bits') ELSE ${value} END AS ${name}${i - 1}`
          : `${value} AS ${name}${i - 1}`,
      );
    }
    q.let(...defs);
  }
  return { name, n };
}

/** |x| of any HUGEINT expression (|MIN| = 2^127 is not a HUGEINT; ~x = −x − 1 is). */
export function absOfHugeint(q: Layers, x: string, name: string): Limbs {
  q.let(`CASE WHEN ${x} < 0 THEN ~(${x}) ELSE ${x} END AS ${name}_m`, `CASE WHEN ${x} < 0 THEN 1 ELSE 0 END AS ${name}_inc`);
  const m = fromHugeint(q, `${name}_m`, `${name}_ml`);
  return normalize(
    q,
    Array.from({ length: HUGEINT_LIMBS }, (_, i) => (i === 0 ? `${limb(m, 0)} + ${name}_inc` : limb(m, i))),
    name,
    HUGEINT_LIMBS,
    'an absolute value',
  );
}

/** a · b in a.n + b.n limbs (column sums of 24-bit products < 2^48 · min(a.n, b.n), in BIGINT). */
export function multiply(q: Layers, a: Limbs, b: Limbs, name: string): Limbs {
  const cols: string[] = [];
  for (let j = 0; j < a.n + b.n - 1; j++) {
    const terms: string[] = [];
    for (let i = Math.max(0, j - b.n + 1); i <= Math.min(j, a.n - 1); i++) terms.push(`${limb(a, i)} * ${limb(b, j - i)}`);
    cols.push(terms.join(' + '));
  }
  return normalize(q, cols, name, a.n + b.n, 'a product');
}

/** a + b in n limbs (raises if it needs more). */
export function add(q: Layers, a: Limbs, b: Limbs, name: string, n: number): Limbs {
  const cols = Array.from({ length: Math.max(a.n, b.n) }, (_, i) => `${limb(a, i)} + ${limb(b, i)}`);
  return normalize(q, cols, name, n, 'a sum');
}

/** a − b in n limbs, for a ≥ b (raises otherwise). */
export function subtract(q: Layers, a: Limbs, b: Limbs, name: string, n: number): Limbs {
  const cols = Array.from({ length: Math.max(a.n, b.n) }, (_, i) => `${limb(a, i)} - ${limb(b, i)}`);
  return normalize(q, cols, name, n, 'a difference');
}

/**
 * ⌊a / h⌋ for a HUGEINT column h, 0 < h < 2^103, in a.n limbs; the remainder is column
 * `${name}_r`. One quotient digit a step from the top: x = r·2^24 + limb < h·2^24 < 2^127,
 * d̂ = ⌊x/h⌋ in DOUBLE is within one of the digit (x/h < 2^24 is carried to ~2^-50 relative),
 * and one exact step y = x − d̂·h moves it into place.
 */
export function divide(q: Layers, a: Limbs, h: string, name: string): Limbs {
  q.let(
    `CASE WHEN ${h} <= 0 OR ${h} >= ${DIVISOR_LIMIT}::HUGEINT THEN error('exact SQL: divisor ' || ${h}::VARCHAR || ' outside 1 .. 2^103 − 1') ELSE ${h}::DOUBLE END AS ${name}_hd`,
  );
  let r = '0::HUGEINT';
  for (let j = a.n - 1; j >= 0; j--) {
    const x = `${name}_x${j}`;
    const e = `${name}_e${j}`;
    const y = `${name}_y${j}`;
    q.let(`${r} * ${BASE} + ${limb(a, j)} AS ${x}`);
    q.let(`floor(${x}::DOUBLE / ${name}_hd)::BIGINT AS ${e}`);
    q.let(`${x} - ${e} * ${h} AS ${y}`);
    q.let(
      `${e} + CASE WHEN ${y} < 0 THEN -1 WHEN ${y} >= ${h} THEN 1 ELSE 0 END AS ${name}${j}`,
      `${y} + CASE WHEN ${y} < 0 THEN ${h} WHEN ${y} >= ${h} THEN -${h} ELSE 0 END AS ${name}_r${j}`,
    );
    r = `${name}_r${j}`;
  }
  q.let(`${r} AS ${name}_r`);
  return { name, n: a.n };
}

/**
 * ⌊a / m⌋ for a BIGINT expression 0 < m < 2^30, in BIGINTs (r·2^24 + limb < 2^54), one layer
 * a limb from the top; the remainder is column `${name}_r`.
 */
export function divideSmall(q: Layers, a: Limbs, m: string, name: string): Limbs {
  let r = '0::BIGINT';
  for (let j = a.n - 1; j >= 0; j--) {
    const x = `((${r} << ${LIMB_BITS}) + ${limb(a, j)})`;
    q.let(`${x} // ${m} AS ${name}${j}`, `${x} % ${m} AS ${name}_r${j}`);
    r = `${name}_r${j}`;
  }
  q.let(`${r} AS ${name}_r`);
  return { name, n: a.n };
}

/**
 * ⌊a / 10^k⌋ for an integer expression 0 ≤ k ≤ 9·passes, nine digits a pass. Returns the
 * quotient and, per pass, the remainder column and its digit count expression (pass p removes
 * the digits 9p … 9p + e_p − 1 of a, e_p = clamp(k − 9p, 0, 9)).
 */
export function dividePow10(q: Layers, a: Limbs, k: string, passes: number, name: string): { quotient: Limbs; remainders: { col: string; digits: string }[] } {
  let cur = a;
  const remainders: { col: string; digits: string }[] = [];
  for (let p = 0; p < passes; p++) {
    const digits = `least(9, greatest(0, (${k}) - ${9 * p}))`;
    cur = divideSmall(q, cur, `${POW10_BIGINT}[${digits} + 1]`, `${name}_p${p}_`);
    remainders.push({ col: `${cur.name}_r`, digits });
  }
  return { quotient: cur, remainders };
}

/** Limbs as a HUGEINT expression, NULL past 2^127 − 1 (composed from three 48-bit BIGINTs). */
export function toHugeint(a: Limbs): string {
  const zero = Array.from({ length: Math.max(0, a.n - HUGEINT_LIMBS) }, (_, i) => `${limb(a, i + HUGEINT_LIMBS)} = 0`);
  const fits = [...zero, `${limb(a, 5)} < 128`].join(' AND '); // limb 5 holds bits 120..143: below 2^127 is below 2^7 there
  // the top piece is masked to 31 bits so that no evaluation order can overflow the shift (DuckDB may
  // hoist a repeated subexpression out of its CASE); the CASE alone decides whether the value fits
  const piece = (k: number) => `(${limb(a, 2 * k)} | (${limb(a, 2 * k + 1)} << ${LIMB_BITS}))${k === 2 ? ' & 2147483647' : ''}`;
  return `CASE WHEN ${fits} THEN ${piece(0)}::HUGEINT | (${piece(1)}::HUGEINT << 48) | (${piece(2)}::HUGEINT << 96) END`;
}

/** Limbs as a HUGEINT expression, raising `what` past 2^127 − 1 (a published amount that has no place in the table). */
export function toHugeintOrRaise(a: Limbs, what: string): string {
  return `coalesce(${toHugeint(a)}, error('exact SQL: ${what} outside HUGEINT'))`;
}

/** −1, 0 or 1 as a compares to b (an expression). */
export function compare(a: Limbs, b: Limbs): string {
  let out = '0';
  for (let i = 0; i < Math.max(a.n, b.n); i++) {
    out = `CASE WHEN ${limb(a, i)} > ${limb(b, i)} THEN 1 WHEN ${limb(a, i)} < ${limb(b, i)} THEN -1 ELSE ${out} END`;
  }
  return out;
}

/**
 * a / 10^k rounded half to even (model/format/numbers.ts halfEven) for 1 ≤ k ≤ 9·passes, as
 * a HUGEINT expression (raises past it). The discarded digits are the passes' remainders: the
 * top one (pass ⌊(k − 1)/9⌋, e digits) against 5·10^(e − 1), ties broken by any lower one.
 */
export function halfEven(q: Layers, a: Limbs, k: string, passes: number, name: string, what: string): string {
  const { quotient, remainders } = dividePow10(q, a, k, passes, name);
  const branches = remainders.map((r, p) => {
    const lower = remainders.slice(0, p).map((x) => `${x.col} <> 0`);
    const half = `(5 * ${POW10_BIGINT}[${r.digits}])`;
    const tie = lower.length > 0 ? `(${lower.join(' OR ')} OR ${limb(quotient, 0)} % 2 = 1)` : `${limb(quotient, 0)} % 2 = 1`;
    return `WHEN ${p} THEN ${r.col} > ${half} OR (${r.col} = ${half} AND ${tie})`;
  });
  q.let(`CASE (${k} - 1) // 9 ${branches.join(' ')} END AS ${name}_up`);
  return `(${toHugeintOrRaise(quotient, what)} + CASE WHEN ${name}_up THEN 1 ELSE 0 END)`;
}

/**
 * Column `out`: the market value (DESIGN §4.4, engine/positions/marketValue.ts) of HUGEINT
 * shares `s` at the 18-decimal unit price `p` ≥ 0 for numeraire decimals `d` (0..36) —
 * s·p / 10^(36 − d) truncated toward zero — negated where `negate` is true, as HUGEINT, NULL
 * outside it (the activity table's rule for absurd values, engine/persist/activityWriter.ts).
 */
export function marketValue(q: Layers, s: string, p: string, d: string, negate: string, out: string): void {
  const sl = absOfHugeint(q, s, `${out}_s`);
  const pl = fromHugeint(q, `CASE WHEN ${p} < 0 THEN error('market value: negative unit price') ELSE ${p} END`, `${out}_p`);
  const prod = multiply(q, sl, pl, `${out}_m`);
  const k = `CASE WHEN ${d} < 0 OR ${d} > 36 THEN error('market value: numeraire decimals ' || ${d}::VARCHAR || ' outside 0..36') ELSE 36 - ${d} END`;
  const { quotient } = dividePow10(q, prod, k, 4, `${out}_q`);
  q.let(`${toHugeint(quotient)} AS ${out}_h`);
  const h = `${out}_h`;
  const neg = `((${s} < 0) <> (${negate}))`;
  // −2^127 is the one magnitude outside HUGEINT whose negation is inside it
  const min = [
    `${limb(quotient, 5)} = 128`,
    ...Array.from({ length: quotient.n }, (_, i) => i)
      .filter((i) => i !== 5)
      .map((i) => `${limb(quotient, i)} = 0`),
  ].join(' AND ');
  q.let(`CASE WHEN ${h} IS NOT NULL THEN CASE WHEN ${neg} THEN -${h} ELSE ${h} END WHEN ${neg} AND ${min} THEN ${MIN_HUGEINT} END AS ${out}`);
}

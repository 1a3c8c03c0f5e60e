// A vault's definition for people: every field of /definition as a labelled row, by what the
// field holds (a name that ends in _wad is a fraction of 1e18, _bps of 10 000, _seconds a
// duration, a 0x…40 string an address) rather than by family, so a family's new fields read
// well without a change here. Nested objects (Aera's `fees`) flatten into their own rows.
import { bpsPercent, duration, wadPercent } from './format.js';

export type DefinitionValue = { kind: 'text'; text: string } | { kind: 'address'; address: string; name: string | null };

export interface DefinitionRow {
  /** the field's path, e.g. `fees.performance_fee_bps` */
  key: string;
  label: string;
  value: DefinitionValue;
}

/** Labels of fields whose plain name would mislead or is jargon. */
const LABELS: Readonly<Record<string, string>> = {
  // a MetaMorpho vault's fee is its performance fee (a share of the interest earned)
  fee_wad: 'Performance fee',
  tvl_fee_bps: 'TVL fee (a year)',
  performance_fee_bps: 'Performance fee',
  timelock_seconds: 'Timelock',
  numeraire_token: 'Deposit token',
  vault_type: 'Family',
  chain_id: 'Chain',
};

/** Shown in the page's heading and facts, not again here. */
const SKIP = new Set(['vault_id', 'name', 'symbol', 'vault_type', 'chain_id']);

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function label(key: string): string {
  if (Object.hasOwn(LABELS, key)) return LABELS[key]!;
  const plain = key.replace(/_(wad|bps|seconds)$/, '').replace(/_/g, ' ');
  return plain.charAt(0).toUpperCase() + plain.slice(1);
}

function value(key: string, v: unknown, names: ReadonlyMap<string, string>): DefinitionValue {
  const text = (t: string): DefinitionValue => ({ kind: 'text', text: t });
  if (v === null || v === undefined) return text('not set');
  if (typeof v === 'string' && ADDRESS.test(v)) return { kind: 'address', address: v.toLowerCase(), name: names.get(v.toLowerCase()) ?? null };
  if (key.endsWith('_wad') && typeof v === 'string') return text(wadPercent(v));
  if (key.endsWith('_bps') && typeof v === 'number') return text(bpsPercent(v));
  if (key.endsWith('_seconds') && typeof v === 'number') return text(duration(v));
  if (typeof v === 'boolean') return text(v ? 'yes' : 'no');
  return text(String(v));
}

/**
 * Rows of a definition. `names` maps lowercase addresses the page knows (the vault, its token,
 * its markets and deployments) to a name shown beside the address.
 */
export function definitionRows(definition: Readonly<Record<string, unknown>>, names: ReadonlyMap<string, string> = new Map()): DefinitionRow[] {
  const rows: DefinitionRow[] = [];
  for (const [key, v] of Object.entries(definition)) {
    if (SKIP.has(key)) continue;
    if (key === 'numeraire_token' && v && typeof v === 'object') {
      const t = v as { address: string; symbol: string | null; decimals: number | null };
      rows.push({
        key,
        label: label(key),
        value: { kind: 'address', address: t.address, name: `${t.symbol ?? 'token'}${t.decimals === null ? '' : ` (${t.decimals} decimals)`}` },
      });
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, inner] of Object.entries(v)) rows.push({ key: `${key}.${k}`, label: label(k), value: value(k, inner, names) });
    } else rows.push({ key, label: label(key), value: value(key, v, names) });
  }
  return rows;
}

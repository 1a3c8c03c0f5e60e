// External TVL sources (DESIGN §4.5): one reading per source and round, the row for
// `tvl_source_values`. A failing source never throws — its row carries `usd: null` and an error
// saying what failed and what to check — so the engine keeps the source's last good value.
import type { Config } from '../../common/config.js';
import { describeError, VaultdError } from '../../common/errors.js';
import { decimalString, USD_DECIMALS } from '../../model/format/numbers.js';
import { displayUrl, fetchExactJson, jsonKind, JsonNumber, pathValue, type ExactJson } from './exactJson.js';

export type TvlSourceConfig = Config['tvl_sources'][number];

export interface TvlReading {
  source_id: string;
  /** the round's time floored to the minute, unix s */
  ts: number;
  /** USD, half-even at 6 places (DECIMAL(38,6)); null when the read failed */
  usd: string | null;
  /** "<what failed> — <what to check>"; null on success */
  error: string | null;
}

export interface ReadTvlSourceOptions {
  /** unix seconds */
  now: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * A JSON value (number or numeric string) as a USD amount half-even at 6 places, or why it is
 * not one: a finite, non-negative number that fits DECIMAL(38,6).
 */
function usdOf(v: ExactJson, where: string, check: string): { usd: string } | { error: string } {
  const text = v instanceof JsonNumber ? v.text : typeof v === 'string' ? v.trim() : null;
  if (text === null) return { error: `${where} is ${jsonKind(v)}, not a number — ${check}` };
  const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  const d = decimalString(text, USD_DECIMALS, 'half-even');
  if (!d.ok && d.reason === 'not a number') return { error: `${where} is the string ${JSON.stringify(shown)}, not a number — ${check}` };
  if (!d.ok) return { error: `${where} (${shown}) does not fit DECIMAL(38,6) — ${check}` };
  const mantissa = text.split(/[eE]/)[0]!;
  if (mantissa.startsWith('-') && /[1-9]/.test(mantissa)) return { error: `${where} is negative (${shown}) — ${check}` };
  return { usd: d.value };
}

/** Reads one external TVL source; never throws and never puts a header value in `error`. */
export async function readTvlSource(source: TvlSourceConfig, opts: ReadTvlSourceOptions): Promise<TvlReading> {
  const ts = Math.floor(opts.now / 60) * 60;
  const row = (r: { usd: string } | { error: string }): TvlReading =>
    'usd' in r ? { source_id: source.id, ts, usd: r.usd, error: null } : { source_id: source.id, ts, usd: null, error: r.error };
  try {
    if (source.kind === 'static') {
      // validated by the config schema as a plain decimal; normalized to DECIMAL(38,6)
      return row(usdOf(source.usd, 'the static usd', "check the source's usd"));
    }
    let body: ExactJson;
    try {
      body = await fetchExactJson(source.url, {
        headers: source.headers,
        timeoutMs: source.timeout_ms,
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } catch (err) {
      return row({ error: err instanceof VaultdError ? err.message : `reading ${source.id} failed (${describeError(err)}) — check the url` });
    }
    const found = pathValue(body, source.path);
    const where = source.path === '' ? 'the body' : `the value at path "${source.path}"`;
    if (!found.found) return row({ error: `no value at path "${source.path}" in the body of GET ${displayUrl(source.url)} (${found.reason}) — check path` });
    return row(usdOf(found.value, where, 'check that path points at a USD amount'));
  } catch (err) {
    return row({ error: `reading ${source.id} failed (${describeError(err)}) — check the source's config` });
  }
}

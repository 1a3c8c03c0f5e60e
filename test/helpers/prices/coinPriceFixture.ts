// A local coin-price API for tests (DESIGN §6.3): serves the DefiLlama coins API
// (/prices/current, /chart) and CoinGecko's (/simple/price, /coins/{id}/market_chart/range) on
// 127.0.0.1 from deterministic generated observations, writing each price's source text into the
// body verbatim (long fractions, exponent notation, invalid values) and injecting 429s, 5xx,
// hangs and garbage bodies on request.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { createRng, type Rng } from '../../../jobs/demo/prng.js';
import { listenOnLoopback } from '../loopback.js';

const HOUR = 3600;
const DAY = 86_400;

/** One observation: its time and the JSON literal of its price, written into bodies as is. */
export interface FixtureObservation {
  t: number;
  price: string;
}

export interface FixtureCoin {
  /** DefiLlama key, e.g. "ethereum:0xa0b8…" (matched case-insensitively) */
  llamaKey: string;
  /** CoinGecko coin id */
  geckoId: string;
  symbol: string;
  decimals: number;
  /** sorted by time, distinct times */
  observations: FixtureObservation[];
}

export type FixtureFault = number | 'hang';

export interface FixtureRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export interface CoinPriceFixture {
  url: string;
  readonly requests: FixtureRequest[];
  /** the next requests whose path starts with `prefix` get these faults in order, then normal answers */
  failNext(prefix: string, faults: readonly FixtureFault[]): void;
  close(): Promise<void>;
}

export interface CoinPriceFixtureOptions {
  /** the API's clock: observations after it are not served */
  now: number;
  coins: readonly FixtureCoin[];
  /** DefiLlama keys and CoinGecko ids whose requests get a truncated JSON body */
  garbage?: readonly string[];
}

/** The most points the chart endpoint serves per request (the real API caps `span`). */
export const CHART_MAX_SPAN = 500;

/** Nearest observation to `g` with |t − g| ≤ width; ties to the earlier. */
function nearest(obs: readonly FixtureObservation[], g: number, width: number): FixtureObservation | undefined {
  let best: FixtureObservation | undefined;
  for (const o of obs) {
    const d = Math.abs(o.t - g);
    if (d <= width && (best === undefined || d < Math.abs(best.t - g))) best = o;
  }
  return best;
}

/** JSON text from parts: strings are quoted, everything else is written as given. */
const obj = (entries: [string, string][]) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
const arr = (items: string[]) => `[${items.join(',')}]`;

export async function startCoinPriceFixture(opts: CoinPriceFixtureOptions): Promise<CoinPriceFixture> {
  const requests: FixtureRequest[] = [];
  const faults: { prefix: string; queue: FixtureFault[] }[] = [];
  const garbage = new Set((opts.garbage ?? []).map((k) => k.toLowerCase()));
  const byLlama = new Map(opts.coins.map((c) => [c.llamaKey.toLowerCase(), c]));
  const byGecko = new Map(opts.coins.map((c) => [c.geckoId.toLowerCase(), c]));
  const seen = (c: FixtureCoin) => c.observations.filter((o) => o.t <= opts.now);

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
  const garbageBody = '{"coins":{"ethereum:0x0":{"price":0.99,"sym';

  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: u.pathname, query: u.searchParams, headers: req.headers });
    const f = faults.find((x) => u.pathname.startsWith(x.prefix) && x.queue.length > 0);
    const fault = f?.queue.shift();
    if (fault === 'hang') return; // never answers; the socket is destroyed on close
    if (fault === 429) return send(res, 429, '{"status":{"error_code":429,"error_message":"You\'ve exceeded the Rate Limit"}}', { 'retry-after': '0' });
    if (fault !== undefined) return send(res, fault, 'Internal Server Error', { 'content-type': 'text/plain' });

    const path = decodeURIComponent(u.pathname);
    if (path.startsWith('/wrongshape/')) return send(res, 200, '{"ok":true}');

    // DefiLlama: GET /prices/current/{keys}
    if (path.startsWith('/prices/current/')) {
      const keys = path.slice('/prices/current/'.length).split(',');
      if (keys.some((k) => garbage.has(k.toLowerCase()))) return send(res, 200, garbageBody);
      const entries: [string, string][] = [];
      for (const k of keys) {
        const c = byLlama.get(k.toLowerCase());
        const last = c ? seen(c).at(-1) : undefined;
        if (!c || !last) continue;
        entries.push([
          k,
          obj([
            ['decimals', String(c.decimals)],
            ['symbol', JSON.stringify(c.symbol)],
            ['price', last.price],
            ['timestamp', String(last.t)],
            ['confidence', '0.99'],
          ]),
        ]);
      }
      return send(res, 200, obj([['coins', obj(entries)]]));
    }
    // DefiLlama: GET /chart/{keys}?start&span&period=1h&searchWidth
    if (path.startsWith('/chart/')) {
      const keys = path.slice('/chart/'.length).split(',');
      const start = Number(u.searchParams.get('start'));
      const span = Number(u.searchParams.get('span') ?? '0');
      const width = Number(u.searchParams.get('searchWidth') ?? '600');
      if (u.searchParams.get('period') !== '1h' || !Number.isSafeInteger(start) || !(span >= 1)) return send(res, 400, '{"message":"bad parameters"}');
      if (span > CHART_MAX_SPAN) return send(res, 400, `{"message":"span must be at most ${CHART_MAX_SPAN}"}`);
      if (keys.some((k) => garbage.has(k.toLowerCase()))) return send(res, 200, garbageBody);
      const entries: [string, string][] = [];
      for (const k of keys) {
        const c = byLlama.get(k.toLowerCase());
        if (!c) continue;
        const obs = seen(c);
        const points: string[] = [];
        for (let i = 0; i < span; i++) {
          const o = nearest(obs, start + i * HOUR, width);
          if (o)
            points.push(
              obj([
                ['timestamp', String(o.t)],
                ['price', o.price],
              ]),
            );
        }
        entries.push([
          k,
          obj([
            ['symbol', JSON.stringify(c.symbol)],
            ['confidence', '0.99'],
            ['decimals', String(c.decimals)],
            ['prices', arr(points)],
          ]),
        ]);
      }
      return send(res, 200, obj([['coins', obj(entries)]]));
    }
    // CoinGecko: GET /simple/price?ids&vs_currencies=usd&include_last_updated_at=true
    if (path === '/simple/price') {
      const ids = (u.searchParams.get('ids') ?? '').split(',').filter(Boolean);
      if (u.searchParams.get('vs_currencies') !== 'usd') return send(res, 400, '{"error":"invalid vs_currencies"}');
      if (ids.some((k) => garbage.has(k.toLowerCase()))) return send(res, 200, garbageBody);
      const entries: [string, string][] = [];
      for (const id of ids) {
        const c = byGecko.get(id.toLowerCase());
        const last = c ? seen(c).at(-1) : undefined;
        if (!c || !last) continue;
        const fields: [string, string][] = [['usd', last.price]];
        if (u.searchParams.get('include_last_updated_at') === 'true') fields.push(['last_updated_at', String(last.t)]);
        entries.push([id, obj(fields)]);
      }
      return send(res, 200, obj(entries));
    }
    // CoinGecko: GET /coins/{id}/market_chart/range?vs_currency=usd&from&to
    const m = /^\/coins\/([^/]+)\/market_chart\/range$/.exec(path);
    if (m) {
      const id = m[1]!;
      const from = Number(u.searchParams.get('from'));
      const to = Number(u.searchParams.get('to'));
      if (garbage.has(id.toLowerCase())) return send(res, 200, garbageBody);
      const c = byGecko.get(id.toLowerCase());
      if (!c) return send(res, 404, '{"error":"coin not found"}');
      if (u.searchParams.get('vs_currency') !== 'usd' || !(to >= from)) return send(res, 400, '{"error":"invalid parameters"}');
      let points: FixtureObservation[];
      if (to - from > 90 * DAY) {
        // like the real API: daily points at 00:00 UTC above 90 days
        points = [];
        for (let d = Math.ceil(from / DAY) * DAY; d <= to; d += DAY) {
          const o = nearest(seen(c), d, HOUR);
          if (o) points.push({ t: d, price: o.price });
        }
      } else {
        points = seen(c).filter((o) => o.t >= from && o.t <= to);
      }
      // milliseconds with a sub-second part, as the real API sends
      const ms = (o: FixtureObservation) => String(o.t * 1000 + (o.t % 997));
      const series = (value: (o: FixtureObservation) => string) => arr(points.map((o) => arr([ms(o), value(o)])));
      return send(
        res,
        200,
        obj([
          ['prices', series((o) => o.price)],
          ['market_caps', series((o) => String(1_000_000 + (o.t % 1000)))],
          ['total_volumes', series((o) => `${o.t % 5000}.5`)],
        ]),
      );
    }
    return send(res, 404, '{"message":"not found"}');
  });
  const loopback = await listenOnLoopback(server);
  return {
    url: loopback.url,
    requests,
    failNext(prefix, queue) {
      faults.push({ prefix, queue: [...queue] });
    },
    close: loopback.close,
  };
}

// ---- deterministic data ----

const digits = (rng: Rng, n: number) => Array.from({ length: n }, () => String(rng.int(0, 9))).join('');

/** A plain decimal string in exponent notation with the same value: "0.0012345" → "1.2345e-3". */
export function toExponentText(dec: string, upper: boolean): string {
  const [int, frac = ''] = dec.split('.');
  const all = (int! + frac).replace(/^0+/, '');
  if (all === '') return upper ? '0E+0' : '0e0';
  const lead = int!.replace(/^0+/, '').length;
  const exp = lead > 0 ? lead - 1 : -(frac.length - frac.replace(/^0+/, '').length + 1);
  const sig = all.replace(/0+$/, '') || '0';
  const mant = sig.length > 1 ? `${sig[0]}.${sig.slice(1)}` : sig;
  return `${mant}${upper ? 'E' : 'e'}${exp >= 0 ? (upper ? '+' : '') : '-'}${Math.abs(exp)}`;
}

export type PriceShape = 'stable' | 'eth' | 'tiny';

/** A price literal: mostly long fractions, some in exponent notation, a few integers, >18-digit fractions, and rare invalid values. */
function priceLiteral(rng: Rng, shape: PriceShape): string {
  const plain =
    shape === 'stable'
      ? `0.99${digits(rng, rng.int(6, 16))}`
      : shape === 'eth'
        ? `${rng.int(1500, 4200)}.${digits(rng, rng.int(8, 14))}`
        : `0.0000${rng.int(1, 9)}${digits(rng, rng.int(6, 12))}`;
  const r = rng.float();
  if (r < 0.15) return toExponentText(plain, rng.chance(0.5));
  if (r < 0.2) return shape === 'eth' ? String(rng.int(1500, 4200)) : '1';
  if (r < 0.27) return `${plain}${digits(rng, 12)}`; // more than 18 fractional digits
  if (r < 0.29) return JSON.stringify(plain); // a numeric string
  if (r < 0.3) return rng.pick(['-0.5', '"n/a"', 'null', '-1.2e-3']); // rejected
  if (r < 0.302) return '0';
  return plain;
}

export interface GenerateCoinOptions {
  seed: number;
  label: string;
  llamaKey: string;
  geckoId: string;
  shape: PriceShape;
  from: number;
  to: number;
  /** [first, last] hour ranges with no observations */
  gaps?: readonly (readonly [number, number])[];
}

/**
 * Observations for every hour in [from, to]: 0–2 per hour at offsets up to ±45 min, some on the
 * hour, some exactly ±30 min (the default tolerance), some pairs ±15 min (a tie).
 */
export function generateCoin(o: GenerateCoinOptions): FixtureCoin {
  const rng = createRng(o.seed, `coin:${o.label}`);
  const byT = new Map<number, string>();
  for (let h = Math.floor(o.from / HOUR) * HOUR; h <= o.to; h += HOUR) {
    if (o.gaps?.some(([a, b]) => h >= a && h <= b)) continue;
    const r = rng.float();
    let offsets: number[];
    if (r < 0.08) offsets = [];
    else if (r < 0.16) offsets = [0];
    else if (r < 0.22) offsets = [rng.pick([-1800, 1800])];
    else if (r < 0.28) offsets = [-900, 900];
    else if (r < 0.55) offsets = [rng.int(-2700, 2700), rng.int(-2700, 2700)];
    else offsets = [rng.int(-2700, 2700)];
    for (const off of offsets) byT.set(h + off, priceLiteral(rng, o.shape));
  }
  const observations = [...byT].map(([t, price]) => ({ t, price })).sort((a, b) => a.t - b.t);
  return { llamaKey: o.llamaKey, geckoId: o.geckoId, symbol: o.label.toUpperCase(), decimals: 18, observations };
}

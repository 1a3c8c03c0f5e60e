import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTvlFixture, type TvlFixture } from '../../test/helpers/prices/tvlFixture.js';
import { readTvlSource, type TvlSourceConfig } from './tvlSources.js';

const NOW = 1_717_200_000 + 1234;
const TS = 1_717_200_000 + 1200; // floored to the minute
const SECRET = 'Bearer SECRET-tvl-token';

/** Independent oracle: decimal.js, half-even at 6 places, trailing zeros stripped. */
function usd6(text: string): string {
  const s = new (Decimal.clone({ precision: 200 }))(text).toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN).toFixed();
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

let server: TvlFixture;
const routes = {
  '/good': { body: '{"tvl": 123456789.1234565, "other": 1}' },
  '/nested': { body: '{"data": {"protocol": {"tvl": 98765.43210987654321}}}' },
  '/array': { body: '[{"chain": "a", "usd": 1}, {"chain": "b", "usd": 2000000.0000015}]' },
  '/string': { body: '{"tvl": "4567.0000005"}' },
  '/exponent': { body: '{"tvl": 1.2e9}' },
  '/exponent-fraction': { body: '{"tvl": 1.23456789E-3}' },
  '/bare': { body: ' 42.5 ' },
  '/zero': { body: '{"tvl": 0}' },
  '/negative': { body: '{"tvl": -5.25}' },
  '/word': { body: '{"tvl": "n/a"}' },
  '/object': { body: '{"tvl": {"usd": 1}}' },
  '/huge': { body: '{"tvl": 1e40}' },
  '/html': { body: '<html><body>Bad gateway</body></html>' },
  '/error500': { status: 500, body: '{"error": "internal"}' },
  '/unauthorized': { status: 401, body: '{"error": "bad token"}' },
  '/hang': { hang: true },
};

beforeAll(async () => {
  server = await startTvlFixture(routes);
});
afterAll(async () => {
  await server.close();
});

type HttpTvlSource = Extract<TvlSourceConfig, { kind: 'http' }>;

function http(path: string, over: Partial<HttpTvlSource> = {}): HttpTvlSource {
  return { id: 'ext', label: 'External', kind: 'http', url: `${server.url}${path}`, path: '', headers: { authorization: SECRET }, timeout_ms: 2_000, ...over };
}

const read = (s: TvlSourceConfig) => readTvlSource(s, { now: NOW });

describe('readTvlSource: http', () => {
  it('reads the value at the path, half-even at 6 places, exactly', async () => {
    const cases: [string, string, string][] = [
      ['/good', 'tvl', '123456789.1234565'],
      ['/nested', 'data.protocol.tvl', '98765.43210987654321'],
      ['/array', '1.usd', '2000000.0000015'],
      ['/string', 'tvl', '4567.0000005'],
      ['/exponent', 'tvl', '1.2e9'],
      ['/exponent-fraction', 'tvl', '1.23456789E-3'],
      ['/bare', '', '42.5'],
      ['/zero', 'tvl', '0'],
    ];
    for (const [route, path, source] of cases) {
      expect(await read(http(route, { path }))).toEqual({ source_id: 'ext', ts: TS, usd: usd6(source), error: null });
    }
    // spelled out, so the oracle cannot hide a shared mistake
    expect((await read(http('/good', { path: 'tvl' }))).usd).toBe('123456789.123456');
    expect((await read(http('/array', { path: '1.usd' }))).usd).toBe('2000000.000002');
    expect((await read(http('/string', { path: 'tvl' }))).usd).toBe('4567');
    expect((await read(http('/exponent', { path: 'tvl' }))).usd).toBe('1200000000');
    expect((await read(http('/exponent-fraction', { path: 'tvl' }))).usd).toBe('0.001235');
  });

  it('sends the configured headers', async () => {
    const before = server.requests.length;
    await read(http('/good', { path: 'tvl', headers: { authorization: SECRET, 'x-extra': '1' } }));
    const req = server.requests[before]!;
    expect(req.headers.authorization).toBe(SECRET);
    expect(req.headers['x-extra']).toBe('1');
  });

  const failing: [string, Partial<HttpTvlSource>, string][] = [
    ['/good', { path: 'data.tvl' }, 'no value at path "data.tvl" in the body of GET {base}/good (the body has no key "data") — check path'],
    ['/array', { path: '5.usd' }, 'no value at path "5.usd" in the body of GET {base}/array (the body has no index 5 (length 2)) — check path'],
    ['/good', { path: 'tvl.usd' }, 'no value at path "tvl.usd" in the body of GET {base}/good ("tvl" is a number, not an object or array) — check path'],
    ['/negative', { path: 'tvl' }, 'the value at path "tvl" is negative (-5.25) — check that path points at a USD amount'],
    ['/word', { path: 'tvl' }, 'the value at path "tvl" is the string "n/a", not a number — check that path points at a USD amount'],
    ['/object', { path: 'tvl' }, 'the value at path "tvl" is an object, not a number — check that path points at a USD amount'],
    ['/huge', { path: 'tvl' }, 'the value at path "tvl" (1e40) does not fit DECIMAL(38,6) — check that path points at a USD amount'],
    ['/good', {}, 'the body is an object, not a number — check that path points at a USD amount'],
    [
      '/html',
      { path: 'tvl' },
      'GET {base}/html returned a body that is not JSON (Unexpected "<" (expected a value) at position 0) — check that the URL points at a JSON API',
    ],
    ['/error500', { path: 'tvl' }, 'GET {base}/error500 answered HTTP 500 — the server failed; check its status page or try later'],
    ['/unauthorized', { path: 'tvl' }, 'GET {base}/unauthorized answered HTTP 401 — check the API key in headers'],
    ['/nowhere', { path: 'tvl' }, 'GET {base}/nowhere answered HTTP 404 — check the URL (and any coin id or key in it)'],
    ['/hang', { path: 'tvl', timeout_ms: 150 }, 'GET {base}/hang timed out after 150 ms — check that the host is up, or raise timeout_ms'],
  ];
  for (const [route, over, error] of failing) {
    it(`error: ${route} ${over.path ?? '(body)'} → ${error.split(' — ')[0]!.replace('{base}', '')}`, async () => {
      const r = await read(http(route, over));
      expect(r).toEqual({ source_id: 'ext', ts: TS, usd: null, error: error.replace('{base}', server.url) });
      expect(r.error).not.toContain('SECRET');
    });
  }

  it('error: a closed port is a connection failure; query values are hidden', async () => {
    const closed = await startTvlFixture({});
    const url = closed.url;
    await closed.close();
    const r = await read({ ...http('/x'), url: `${url}/tvl?api_key=SECRET-in-query&chain=eth` });
    expect(r.usd).toBeNull();
    expect(r.error).toBe(`GET ${url}/tvl?api_key=***&chain=*** failed (ECONNREFUSED) — check the URL and that the host is reachable`);
  });

  it('never throws, even when fetch itself throws synchronously', async () => {
    const r = await readTvlSource(http('/good', { path: 'tvl' }), {
      now: NOW,
      fetch: () => {
        throw new TypeError('boom');
      },
    });
    expect(r).toEqual({ source_id: 'ext', ts: TS, usd: null, error: `GET ${server.url}/good failed (boom) — check the URL and that the host is reachable` });
  });
});

describe('readTvlSource: static', () => {
  it('returns the configured usd, normalized to 6 places half-even', async () => {
    const s = (usd: string): TvlSourceConfig => ({ id: 'fixed', label: 'Fixed', kind: 'static', usd });
    expect(await read(s('1500000.25'))).toEqual({ source_id: 'fixed', ts: TS, usd: '1500000.25', error: null });
    expect((await read(s('10.00000050'))).usd).toBe('10');
    expect((await read(s('10.0000015'))).usd).toBe('10.000002');
    expect((await read(s('0'))).usd).toBe('0');
  });
});

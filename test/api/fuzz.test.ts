// Bad input never yields a 5xx (DESIGN §9): random paths, query strings and header values sent
// byte-exact over raw TCP. Every answer is a non-5xx; every error is the envelope; no body
// shows a stack trace or a file path. Bounded: 300 requests in all.
import { connect } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBody, idsOf, LEAK, useServer } from './server.js';

const ctx = useServer('fuzz');
const RUNS = 100;

interface Answer {
  status: number;
  headers: Map<string, string>;
  text: string;
}

/** One request on its own connection; null when the server closes it without an answer. */
function send(port: number, request: Buffer): Promise<Answer | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 60 s to ${JSON.stringify(request.toString('latin1').slice(0, 300))}`));
    }, 60_000);
    /** The answer once it is whole: its head, and a body of its Content-Length (none for HEAD, 304, 204). */
    const finish = (closed: boolean) => {
      if (settled) return;
      const raw = Buffer.concat(chunks);
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) {
        if (!closed) return;
        settled = true;
        clearTimeout(timer);
        return resolve(null);
      }
      const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const status = Number(statusLine!.split(' ')[1]);
      const bodiless = request.toString('latin1').startsWith('HEAD ') || status === 304 || status === 204;
      const length = bodiless ? 0 : Number(headers.get('content-length') ?? Number.NaN);
      let body = raw.subarray(end + 4);
      // a body without a length (uWS's own error pages) ends when the server closes
      if (!closed && !(body.length >= length)) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      try {
        // a HEAD answer names its encoding but has no body to decode
        const encoding = body.length > 0 ? headers.get('content-encoding') : undefined;
        if (encoding === 'gzip') body = gunzipSync(body);
        if (encoding === 'br') body = brotliDecompressSync(body);
        resolve({ status, headers, text: body.toString('utf8') });
      } catch (err) {
        reject(new Error(`cannot read the answer to ${JSON.stringify(request.toString('latin1').slice(0, 300))}: ${(err as Error).message}`));
      }
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      finish(false);
    });
    socket.on('error', () => undefined); // a reset is a close
    socket.on('close', () => finish(true));
    // the request, then wait for the answer: uWS closes a connection whose client half-closes
    // (FIN) before an answer that takes a turn of the event loop (work on the pool) is written
    socket.write(request);
  });
}

/** Bytes that cannot stand in a request line are percent-encoded (control bytes, space, `#`, `?`). */
const pathSafe = (s: string) => s.replace(/[\x00-\x20\x7f#?]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
/** Non-ASCII as UTF-8 percent escapes: a well-formed request target. */
const asciiTarget = (s: string) => s.replace(/[^\x00-\x7f]+/gu, (c) => encodeURIComponent(c));
/** A header value of visible latin1 bytes (a UTF-16 unit above 0xff would be truncated to any byte, CR and LF included). */
const headerSafe = (s: string) => s.replace(/[^\x09\x20-\x7e\x80-\xff]/g, '');

const WORDS = [
  'v1',
  'vaults',
  'users',
  'positions',
  'activity',
  'timeseries',
  'definition',
  'allocations',
  'slug',
  'featured',
  'tvl',
  'strategies',
  'prices',
  'health',
  'chains',
  'metrics',
  'openapi.json',
  'docs',
];
const GARBAGE = ['..', '.', '%', '%zz', '%2F', '%00', '%E2%98', '%ff%fe', '%C0%AF', '+', '%20', '~', ';x=1', '*', '\\', '\u2603', '\u{1F600}', 'é'];

function arbitraries(vault: string, wallet: string) {
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.constantFrom(...GARBAGE),
  );
  const segment = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...WORDS, vault, wallet, vault.toUpperCase(), `${vault}x`, wallet.slice(0, 20)) },
    { weight: 2, arbitrary: text },
    { weight: 1, arbitrary: fc.constantFrom(...GARBAGE) },
  );
  const path = fc
    .tuple(fc.constantFrom('/v1/', '/v1/vaults/', `/v1/users/${wallet}/`, '/', '//'), fc.array(segment, { maxLength: 6 }), fc.boolean())
    .map(([prefix, segs, slash]) => pathSafe(prefix + segs.join('/') + (slash ? '/' : '')));
  const name = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(
        'limit',
        'next',
        'order',
        'start',
        'end',
        'granularity',
        'include_hidden',
        'include_breakdown',
        'include_sources',
        'vault_id',
        'address',
        'chain_id',
        'at',
      ),
    },
    { weight: 1, arbitrary: text },
  );
  const value = fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '1',
      '-1',
      '1000',
      '10001',
      '1e3',
      'true',
      'desc',
      'asc',
      'hour',
      'week',
      '2026-03-01',
      '2026-02-30',
      '2026-03-01T05:30:00Z',
      '+99999-01-01',
      vault,
      wallet,
      'eyJ2IjoxfQ',
    ),
    text,
    fc.integer({ min: 1, max: 8 }).map((kb) => 'a'.repeat(kb * 1000 - 10)),
    fc.double().map(String),
  );
  const param = fc.tuple(name, value, fc.boolean()).map(([n, v, enc]) => (enc ? `${encodeURIComponent(n)}=${encodeURIComponent(v)}` : `${n}=${v}`));
  const query = fc
    .array(fc.oneof({ weight: 6, arbitrary: param }, { weight: 1, arbitrary: fc.constantFrom('', '=', '==', '&', 'limit', 'limit=1') }), { maxLength: 8 })
    .map((ps) => pathSafe(ps.join('&')).slice(0, 8_500));
  const headerValue = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary-ascii', maxLength: 60 }),
    fc.constantFrom('Bearer', 'Bearer ', 'bearer vk_x', 'Basic Zm9v', '*', 'W/"x"', 'gzip;q=2', 'br;q=abc, *;q=0', 'identity;q=0', '\u00ff\u00fe'),
    fc.integer({ min: 1, max: 4 }).map((kb) => 'x'.repeat(kb * 1000)),
  );
  const headers = fc.dictionary(
    fc.oneof(
      fc.constantFrom('authorization', 'x-api-key', 'x-request-id', 'accept-encoding', 'if-none-match', 'origin'),
      fc.stringMatching(/^x-[a-z0-9-]{1,20}$/),
    ),
    headerValue.map(headerSafe),
    { maxKeys: 4 },
  );
  return { path, query, headers };
}

function request(method: string, target: string, headers: Record<string, string> = {}): Buffer {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  // latin1: a header value's UTF-16 units above 0xff never reach the wire as multi-byte junk
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')]);
}

/** The target as raw UTF-8 bytes: not a valid request line, so uWS may close without answering. */
function utf8Request(method: string, target: string, headers: Record<string, string>): Buffer {
  const head = request(method, 'TARGET', headers).toString('latin1');
  const [before, after] = head.split('TARGET') as [string, string];
  return Buffer.concat([Buffer.from(before, 'latin1'), Buffer.from(target, 'utf8'), Buffer.from(after, 'latin1')]);
}

/** The invariants every answer keeps. */
function check(method: string, target: string, a: Answer | null, dropped: string[]): void {
  if (a === null) {
    dropped.push(target);
    return;
  }
  const where = `${method} ${target.slice(0, 300)}`;
  expect(a.status, where).toBeLessThan(500);
  expect(LEAK.test(a.text), `${where}: the body leaks a path or stack: ${a.text.slice(0, 300)}`).toBe(false);
  if (a.status >= 400 && method !== 'HEAD') {
    const body = JSON.parse(a.text);
    expect(Object.keys(body), where).toEqual(['error']);
    expect(typeof body.error.code).toBe('string');
    expect(typeof body.error.message).toBe('string');
  }
  const type = a.headers.get('content-type') ?? '';
  const body = type.startsWith('application/json') && a.text !== '' ? JSON.parse(a.text) : a.text;
  checkBody(method, target, a.status, body, a.text);
}

describe('fuzzing (bounded)', () => {
  const run = async (arb: fc.Arbitrary<{ method: string; target: string; headers: Record<string, string>; utf8: boolean }>) => {
    const dropped: string[] = [];
    let rawUtf8 = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ({ method, target, headers, utf8 }) => {
        if (utf8 && /[^\x00-\x7f]/.test(target)) {
          rawUtf8++;
          const a = await send(ctx.server.port, utf8Request(method, target, headers));
          if (a !== null) check(method, target, a, []);
          return;
        }
        const ascii = asciiTarget(target);
        check(method, ascii, await send(ctx.server.port, request(method, ascii, headers)), dropped);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    expect((await ctx.api.get('/health')).status, 'the server is still up').toBe(200);
    // uWS may close a connection whose request line is not ASCII; every well-formed request is answered
    expect(dropped, 'well-formed requests closed without an answer').toEqual([]);
    expect(rawUtf8).toBeLessThan(RUNS);
  };

  it('random paths, inside and outside /v1, never a 5xx', async () => {
    const { path } = arbitraries(idsOf(ctx.world, 'visible')[0]!, ctx.world.wallets[0]!);
    await run(
      fc.record({
        method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE'),
        target: path,
        headers: fc.constant({}),
        utf8: fc.boolean(),
      }),
    );
  });

  it('random query strings on every route: unicode, bad percent-encoding, repeats, values up to ~8 KB', async () => {
    const vault = idsOf(ctx.world, 'visible')[0]!;
    const wallet = ctx.world.wallets[0]!;
    const { query } = arbitraries(vault, wallet);
    const routes = [
      '/v1/vaults',
      '/v1/vaults/featured',
      `/v1/vaults/${vault}`,
      `/v1/vaults/${vault}/timeseries`,
      `/v1/users/${wallet}/positions`,
      `/v1/users/${wallet}/positions/${vault}/timeseries`,
      `/v1/users/${wallet}/activity`,
      '/v1/tvl',
      '/v1/prices',
      '/v1/prices/timeseries',
      '/health',
    ];
    await run(
      fc.record({
        method: fc.constant('GET'),
        target: fc.tuple(fc.constantFrom(...routes), query).map(([r, q]) => `${r}?${q}`),
        headers: fc.constant({}),
        utf8: fc.boolean(),
      }),
    );
  });

  it('random header values (credentials, request id, encodings, validators)', async () => {
    const vault = idsOf(ctx.world, 'visible')[0]!;
    const { headers } = arbitraries(vault, ctx.world.wallets[0]!);
    await run(
      fc.record({
        method: fc.constantFrom('GET', 'HEAD', 'OPTIONS'),
        target: fc.constantFrom('/v1/vaults', `/v1/vaults/${vault}/timeseries?limit=5`, '/v1/strategies', '/v1/tvl', '/health', '/v1/nope'),
        headers,
        utf8: fc.constant(false),
      }),
    );
  });
});

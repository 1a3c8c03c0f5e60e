// Per-request costs on the serving thread that the test suite used to print (and could not
// fail on): request ids, Accept-Encoding negotiation, and splicing a request id into a
// precompressed page (gzip and brotli) against compressing the whole body per request.
// Runnable alone (`node dist/bench/transportCosts.bench.js`) and through bench/run.ts (`run()`).
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { buildPage, pageBody } from '../engine/publish/page.js';
import { requestIdFrom } from '../server/requestId.js';
import { chooseEncoding } from '../server/transport/negotiate.js';
import { brBody, brVariant, gzipBody, gzipVariant } from '../server/transport/splice.js';
import type { BenchOutput } from './run.js';

/** ns per call of `f` over `n` calls, after a warm-up. */
function nsPerCall(n: number, f: (i: number) => unknown): number {
  for (let i = 0; i < Math.min(n, 10_000) / 10; i++) f(i);
  const start = performance.now();
  for (let i = 0; i < n; i++) f(i);
  return ((performance.now() - start) * 1e6) / n;
}

function realisticPage(rows: number) {
  const data = Array.from({ length: rows }, (_, i) => ({
    vault_id: `eth:0x${(i * 7919).toString(16).padStart(40, '0')}`,
    name: `Vault ${i} — Ünïcødé ✓`,
    tvl_usd: (1_234_567.891 * (i + 1)).toFixed(6),
    apy: { d7: '0.0412', d30: '0.0398', d90: null },
  }));
  return buildPage(data, { count: rows, limit: 100, next_cursor: null, partial_errors: null }, '2024-05-01T00:00:00Z');
}

export async function run(): Promise<BenchOutput> {
  const incoming = 'LkR2c9xQb1s-1a2b';
  const requestId = { fresh_ns: nsPerCall(1_000_000, () => requestIdFrom(undefined)), echo_ns: nsPerCall(1_000_000, () => requestIdFrom(incoming)) };

  const headers = ['gzip, deflate, br, zstd', 'gzip', 'br;q=1.0, gzip;q=0.8, *;q=0.1'];
  const negotiate = { choose_encoding_ns: nsPerCall(300_000, (i) => chooseEncoding(headers[i % 3])) };

  const page = realisticPage(20); // ~3.6 KB, a typical precompressed page
  let t0 = performance.now();
  const gzip = gzipVariant(page.prefix);
  const br = brVariant(page.prefix);
  const buildMs = performance.now() - t0;
  const ids = Array.from({ length: 1024 }, (_, i) => `LkR2c9xQb1s-${i.toString(36)}`);
  // the splice must give what compressing the whole body gives once decoded
  const want = pageBody(page, ids[1]!);
  if (!zlib.gunzipSync(Buffer.concat(gzipBody(gzip, ids[1]!))).equals(want) || !zlib.brotliDecompressSync(Buffer.concat(brBody(br, ids[1]!))).equals(want)) {
    throw new Error('a spliced body does not decode to the page');
  }
  const big = realisticPage(1600);
  t0 = performance.now();
  gzipVariant(big.prefix);
  brVariant(big.prefix);
  const bigMs = performance.now() - t0;
  const splice = {
    page_bytes: page.prefix.length,
    gzip_head_bytes: gzip.head.length,
    br_head_bytes: br.head.length,
    gzip_body_ns: nsPerCall(200_000, (i) => gzipBody(gzip, ids[i & 1023]!)),
    br_body_ns: nsPerCall(200_000, (i) => brBody(br, ids[i & 1023]!)),
    raw_concat_ns: nsPerCall(200_000, (i) => pageBody(page, ids[i & 1023]!)),
    gzip_sync_level6_ns: nsPerCall(2_000, (i) => zlib.gzipSync(pageBody(page, ids[i & 1023]!), { level: 6 })),
    brotli_sync_q11_ns: nsPerCall(500, (i) => zlib.brotliCompressSync(pageBody(page, ids[i & 1023]!))),
    build_variants_ms: buildMs,
    big_page_bytes: big.prefix.length,
    build_variants_big_ms: bigMs,
  };
  const round = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 100) / 100]));
  return { name: 'transport_costs', results: { request_id: round(requestId), negotiate: round(negotiate), splice: round(splice) } };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run()
    .then((out) => console.log(JSON.stringify(out.results, null, 2)))
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}

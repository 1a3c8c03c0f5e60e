// HTTP/1.0 and malformed requests on both transports, with raw sockets. The default (uWS
// 20.57) answers HTTP/1.0, HTTP/0.9, a Host-less HTTP/1.1 request, an oversized head and
// garbage at once with its own 505/400/431 and closes; `server.transport: "node"` serves
// HTTP/1.0 (with and without keep-alive). Behind nginx, the README's site file
// (docs/nginx.conf: HTTP/1.1, keep-alive upstream) is run as it is in front of the default.
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';
import { vaultdSpawn, waitForListening, smallDemoDb, stopChildren } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';
import { ensureNginx, startNginx, startNginxSite, type Nginx } from './helpers/nginx.js';

let dir: string;
let db: string;
const children: ChildProcess[] = [];
const balancers: Nginx[] = [];

async function serve(transport: 'uws' | 'node'): Promise<number> {
  const cfg = join(dir, `${transport}.json`);
  writeFileSync(cfg, JSON.stringify({ server: { transport } }));
  const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--no-jobs', '--config', cfg]);
  children.push(child);
  return waitForListening(child);
}

/**
 * Send raw bytes; collect what comes back until the server closes or, once the answer has
 * begun, `idleMs` passes with nothing new (before the first byte there is no timer: a loaded
 * machine may be slow to answer, and the test's timeout bounds that wait). `ms`: from the
 * write to the first byte of the answer (null: none came).
 */
function raw(port: number, payload: string, idleMs = 3000): Promise<{ text: string; closed: boolean; ms: number | null }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    let t0 = 0;
    let ms: number | null = null;
    const done = (closed: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve({ text, closed, ms });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => done(false), idleMs);
    };
    s.on('data', (d: Buffer) => {
      ms ??= performance.now() - t0;
      text += d.toString('latin1');
      arm();
    });
    s.on('end', () => done(true));
    s.on('error', () => done(true));
    s.on('connect', () => {
      t0 = performance.now();
      s.write(payload);
    });
  });
}

const statusOf = (text: string) => Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
/** status lines anywhere: a pipelined answer follows the previous body without a line break */
const responses = (text: string) => text.match(/HTTP\/1\.[01] \d{3} /g) ?? [];

beforeAll(() => {
  dir = tempDir();
  db = join(dir, 'w.duckdb');
  smallDemoDb(db);
});
afterAll(async () => {
  for (const b of balancers) await b.stop();
  await stopChildren(children);
});

/** n header lines after Host */
const headers = (n: number) => Array.from({ length: n }, (_, i) => `X-Hop-${i}: 10.0.0.${i % 250}\r\n`).join('');

describe('the default transport (uWebSockets.js)', () => {
  let port: number;
  beforeAll(async () => {
    port = await serve('uws');
  });

  // Each must be answered and closed by the server itself, long before its 10 s idle timeout
  // (the old build left these hanging 8–12 s); the time to the first byte is printed.
  const cases: [string, string, number][] = [
    ['HTTP/1.0 without Host', 'GET /health HTTP/1.0\r\n\r\n', 505],
    ['HTTP/1.0 with Host', 'GET /health HTTP/1.0\r\nHost: x\r\n\r\n', 505],
    ['HTTP/1.0 with keep-alive', 'GET /health HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n', 505],
    ['HTTP/1.0 without Host, with keep-alive', 'GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n', 505],
    ['HTTP/1.1 without Host', 'GET /health HTTP/1.1\r\n\r\n', 400],
    ['200 header lines', `GET /health HTTP/1.1\r\nHost: x\r\n${headers(200)}\r\n`, 431],
    ['a 40 KB header', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`, 431],
    ['HTTP/0.9', 'GET /health\r\n', 505],
    ['an absolute-form target', 'GET http://x/health HTTP/1.1\r\nHost: x\r\n\r\n', 505],
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n', 505],
    ['LF-only line ends', 'GET /health HTTP/1.1\nHost: x\n\n', 505],
    ['garbage bytes', '\x00\x01\x02HELLO THERE\r\n\r\n', 505],
  ];
  for (const [what, payload, status] of cases) {
    it(`${what}: ${status} with Connection: close, then closed`, async () => {
      // the hang this guards against lasts until the server's 10 s idle timeout; the bound sits
      // just under it, not at a guess of how fast a loaded machine answers
      const r = await raw(port, payload, 8000);
      process.stdout.write(`http10: ${what} → ${statusOf(r.text)} after ${r.ms?.toFixed(1)} ms\n`);
      expect(statusOf(r.text)).toBe(status);
      expect(r.text).toMatch(/\r\nConnection: close\r\n/i);
      expect(r.closed).toBe(true);
      expect(r.ms).not.toBeNull();
      expect(r.ms!).toBeLessThan(8000);
    });
  }

  it('a request through a chain of proxies (60 header lines) is served', async () => {
    const r = await raw(port, `GET /health HTTP/1.1\r\nHost: x\r\n${headers(60)}Connection: close\r\n\r\n`);
    expect(statusOf(r.text)).toBe(200);
    expect(r.text).toMatch(/"status":"ok"/);
  });

  it("a target up to the API limit reaches vaultd (its own 414 past 8 KiB, not the transport's 431)", async () => {
    const long = await raw(port, `GET /v1/vaults?x=${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(statusOf(long.text)).toBe(414);
    expect(long.text).toMatch(/"code":"URI_TOO_LONG"/);
    const fits = await raw(port, `GET /v1/vaults?x=${'a'.repeat(7000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(statusOf(fits.text)).toBe(200);
  });
});

describe('server.transport "node"', () => {
  let port: number;
  beforeAll(async () => {
    port = await serve('node');
  });

  it('serves HTTP/1.0 without keep-alive, then closes', async () => {
    const r = await raw(port, 'GET /v1/vaults HTTP/1.0\r\n\r\n');
    expect(statusOf(r.text)).toBe(200);
    expect(r.text).toMatch(/"data":\[/);
    expect(r.closed).toBe(true);
  });

  it('serves HTTP/1.0 with keep-alive: two requests on one connection', async () => {
    const one = 'GET /v1/vaults HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n';
    const r = await raw(port, one + one, 4000);
    expect(responses(r.text)).toHaveLength(2);
    expect(r.text).toMatch(/Connection: keep-alive/i);
  });

  it('answers malformed requests at once: no Host 400, garbage 400, huge headers 431, long target 414', async () => {
    const noHost = await raw(port, 'GET /v1/vaults HTTP/1.1\r\n\r\n');
    expect(statusOf(noHost.text)).toBe(400);
    expect(noHost.closed).toBe(true);
    const garbage = await raw(port, 'HELLO THERE\r\n\r\n');
    expect(statusOf(garbage.text)).toBe(400);
    expect(garbage.text).toMatch(/"code":"BAD_REQUEST"/);
    const big = await raw(port, `GET /v1/vaults HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
    expect(statusOf(big.text)).toBe(431);
    const long = await raw(port, `GET /v1/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(statusOf(long.text)).toBe(414);
    expect(long.text).toMatch(/"code":"URI_TOO_LONG"/);
  });

  it('the same answers as the uWS transport (bodies and ETags)', async () => {
    const uws = await serve('uws');
    for (const path of ['/v1/vaults', '/v1/tvl?include_breakdown=true', '/v1/vaults/featured']) {
      const [a, b] = await Promise.all([port, uws].map((p) => fetch(`http://127.0.0.1:${p}${path}`, { headers: { 'x-request-id': 'same' } })));
      expect(a!.status).toBe(200);
      expect(a!.headers.get('etag')).toBe(b!.headers.get('etag'));
      expect(await a!.text()).toBe(await b!.text());
    }
  });
});

const nginx = ensureNginx();
if ('reason' in nginx) process.stdout.write(`http10.test.ts nginx cases skipped: ${nginx.reason}\n`);

describe.skipIf('reason' in nginx)('behind nginx', () => {
  it("nginx's default proxy_pass (HTTP/1.0 upstream) to the node transport: 200s", async () => {
    const port = await serve('node');
    const lb = await startNginx((nginx as { bin: string }).bin, join(dir, 'nginx10'), [port], { http10: true });
    balancers.push(lb);
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${lb.url}/v1/vaults`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    }
  });

  it("docs/nginx.conf (the README's site file) as it is, in front of the default transport: 200s over keep-alive", async () => {
    const port = await serve('uws');
    const site = readFileSync(join(PROJECT_ROOT, 'docs', 'nginx.conf'), 'utf8');
    expect(site).toMatch(/proxy_http_version 1\.1;/);
    expect(site).toMatch(/keepalive \d+;/);
    const lb = await startNginxSite((nginx as { bin: string }).bin, join(dir, 'nginx-site'), site, port);
    balancers.push(lb);
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${lb.url}/v1/vaults`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    }
    // an HTTP/1.0 client of nginx is served too: nginx speaks HTTP/1.1 to vaultd
    const r = await raw(Number(new URL(lb.url).port), 'GET /health HTTP/1.0\r\n\r\n');
    expect(statusOf(r.text)).toBe(200);
  });
});

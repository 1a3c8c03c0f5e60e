// Shared setup of the end-to-end API tests: build the pinned demo world into a temp dir, start
// `vaultd serve` on it, and talk to it over loopback. Every body received is checked against
// /openapi.json (server/schemas/validateResponse.ts) before a test sees it.
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll } from 'vitest';
import { createStore } from '../../store/store.js';
import { createResponseValidator } from '../../server/schemas/validateResponse.js';
import { tempDir, testCommon } from '../helpers/common.js';
import { vaultd, vaultdSpawn, waitForListening } from '../helpers/cli.js';

export const NOW = '2026-06-01T00:00:00Z';
const DEMO = ['--seed', '7', '--now', NOW, '--days', '200', '--wallets', '150'];
/** Rate limits of the ordinary test server: high enough that no test meets them. */
export const UNLIMITED = { rate_limits: { anonymous_per_minute: 1_000_000, keyed_per_minute: 1_000_000 } };
/** A wallet that never touched anything. */
export const UNKNOWN_WALLET = '0x00000000000000000000000000000000000000aa';

export interface RegistryVault {
  vault_id: string;
  visibility: 'visible' | 'hidden' | 'disabled';
  vault_type: string;
  slug: string | null;
  strategy_id: string | null;
  decimals: number;
  /** Unix seconds */
  listed_at: number;
}

export interface World {
  dir: string;
  db: string;
  /** the curated registry as stored (the API never shows disabled vaults, so it comes from the DB) */
  vaults: RegistryVault[];
  /** wallets known to the store, most active first */
  wallets: string[];
  /** a wallet with events in a disabled vault */
  disabledWallet: string;
}

export function idsOf(world: World, visibility: RegistryVault['visibility']): string[] {
  return world.vaults.filter((v) => v.visibility === visibility).map((v) => v.vault_id);
}

/** The pinned demo world in a fresh temp dir (a copy: each server owns its file), and the registry facts tests need. */
export async function buildWorld(prefix: string): Promise<World> {
  const dir = tempDir(`vaultd-api-${prefix}-`);
  try {
    return await demoWorld(dir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The pinned demo world's database, built once per test run and copied by every file that
 * serves it (the build is deterministic: seed, clock and sizes fixed; a build per file was a
 * dozen identical `vaultd demo` runs). It lives in the run's temp root (test/helpers/
 * globalSetup.ts), so it goes with the run. The first worker to ask builds it; the others wait
 * for the file to appear.
 */
async function pinnedWorldDb(): Promise<string> {
  const home = join(tmpdir(), 'pinned-demo-world');
  const db = join(home, 'world.duckdb');
  const failed = join(home, 'failed.txt');
  let builder = false;
  try {
    mkdirSync(home);
    builder = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (builder) {
    const building = join(home, 'building');
    mkdirSync(building);
    const built = vaultd(['demo', '--db', join(building, 'world.duckdb'), ...DEMO]);
    if (built.status !== 0) {
      writeFileSync(failed, built.stderr);
      throw new Error(`vaultd demo failed: ${built.stderr}`);
    }
    renameSync(join(building, 'world.duckdb'), db);
    return db;
  }
  // another worker builds it: its file (or its failure) is the event
  while (!existsSync(db)) {
    if (existsSync(failed)) throw new Error(`vaultd demo failed in another worker: ${readFileSync(failed, 'utf8')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return db;
}

async function demoWorld(dir: string): Promise<World> {
  const db = join(dir, 'world.duckdb');
  copyFileSync(await pinnedWorldDb(), db);
  const store = await createStore(testCommon(), { path: db });
  try {
    const vaults = await store.rows<RegistryVault>(
      'test.registry',
      `SELECT v.vault_id, v.visibility, v.vault_type, g.slug, v.strategy_id, v.numeraire_decimals AS decimals,
              CAST(epoch(v.listed_at) AS DOUBLE) AS listed_at
         FROM vaults v LEFT JOIN vault_groups g ON g.id = v.group_id ORDER BY v.vault_id`,
    );
    const disabled = await store.one<{ wallet: string }>(
      'test.disabled_wallet',
      `SELECT e.wallet FROM vault_events e JOIN vaults v USING (vault_id) WHERE v.visibility = 'disabled' ORDER BY e.wallet LIMIT 1`,
    );
    for (const visibility of ['visible', 'hidden', 'disabled']) {
      if (!vaults.some((v) => v.visibility === visibility)) throw new Error(`the demo world has no ${visibility} vault`);
    }
    if (!disabled) throw new Error('the demo world has no events in a disabled vault');
    // the order of `vaultd wallets` (test/cli.test.ts), without one more process start per file
    const wallets = await store.rows<{ wallet: string }>(
      'test.wallets',
      'SELECT wallet, count(*) AS n FROM vault_events GROUP BY wallet ORDER BY n DESC, wallet',
    );
    return { dir, db, vaults, wallets: wallets.map((w) => w.wallet), disabledWallet: disabled.wallet };
  } finally {
    await store.close(); // before a server opens the file: DuckDB locks it
  }
}

/** A copy of the world's database for another server (each server owns its file). */
export function copyDb(world: World, name: string): string {
  const path = join(world.dir, `${name}.duckdb`);
  copyFileSync(world.db, path);
  return path;
}

/** `vaultd keys create` on `db`; returns the key id and its secret. */
export function createKey(db: string, name: string): { id: string; secret: string } {
  const r = vaultd(['keys', 'create', name, '--db', db]);
  if (r.status !== 0) throw new Error(`keys create failed: ${r.stderr}`);
  const secret = r.stdout.trim().split('\n').at(-1)!;
  const id = /created API key (key_[0-9a-f]+)/.exec(r.stdout)?.[1];
  if (!id) throw new Error(`keys create printed no id: ${r.stdout}`);
  return { id, secret };
}

export interface Server {
  port: number;
  base: string;
  api: Api;
  /** stderr of the server so far (its pino lines) */
  log(): string;
  /** SIGTERM, wait for exit; throws when the server had died on its own before */
  stop(): Promise<void>;
}

export async function startServer(db: string, opts: { dir: string; config?: object; name?: string }): Promise<Server> {
  const args = ['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs'];
  if (opts.config) {
    const file = join(opts.dir, `${opts.name ?? 'server'}.config.json`);
    writeFileSync(file, JSON.stringify(opts.config));
    args.push('--config', file);
  }
  const child: ChildProcess = vaultdSpawn(args);
  let log = '';
  child.stderr!.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-20_000);
  });
  let stopping = false;
  let died: string | null = null;
  child.once('exit', (code, signal) => {
    if (!stopping) died = `server exited by itself (code ${code}, signal ${signal}):\n${log}`;
  });
  const port = await waitForListening(child);
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    base,
    api: createApi(base),
    log: () => log,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (died) throw new Error(died);
    },
  };
}

// ---- validated HTTP ----

const validator = createResponseValidator();
/** A stack frame or a file path: never in a body (DESIGN §5.3, STYLE 6). */
export const LEAK = /\/(?:work|home|tmp|usr|root|opt|var|srv)\/[\w.-]|node_modules|\.(?:ts|js|mjs|cjs):\d+|\bat [\w.$<>]+ \(|\n\s+at /;

const EXPLORER_PAGE = /^\/(docs\/?|vaults\/[^/]+|wallets\/[^/]+|explorer\/.+|client\/.+)?$/;

/**
 * Check a received body against the OpenAPI document: the route's documented response for
 * that status, or the generic error envelope for answers no operation documents (405, and
 * errors on unknown routes). Bodiless answers (HEAD, 204, 304) must be empty.
 */
export function checkBody(method: string, path: string, status: number, body: unknown, text: string): void {
  // the explorer's pages and files (/, /docs, /vaults/…, /wallets/…, /explorer/…) are outside the API document
  if (status === 200 && EXPLORER_PAGE.test(path.split('?')[0]!) && typeof body === 'string') return;
  if (method === 'HEAD' || status === 204 || status === 304) {
    if (text !== '') throw new Error(`${method} ${path} answered ${status} with a body: ${text.slice(0, 200)}`);
    return;
  }
  let documented = false;
  try {
    validator.resolve(path);
    documented = status !== 405;
  } catch {
    documented = false;
  }
  const errors = documented
    ? validator.validate(path, status, body)
    : status >= 400
      ? validator.validateComponent('ErrorResponse', body)
      : [`no schema for a ${status} of ${path}`];
  if (errors.length > 0) {
    throw new Error(
      `${method} ${path.slice(0, 300)} → ${status}: the body does not match /openapi.json:\n  ${errors.slice(0, 10).join('\n  ')}\n${text.slice(0, 500)}`,
    );
  }
  if (status >= 400 && LEAK.test(text)) throw new Error(`${method} ${path} → ${status}: the error body leaks a path or stack: ${text}`);
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Api {
  base: string;
  /** fetch `path` (with its query), parse and validate the body */
  get<T = any>(path: string, init?: { method?: string; headers?: Record<string, string> }): Promise<Res<T>>;
  /** GET that must answer 200; returns the body */
  ok<T = any>(path: string, headers?: Record<string, string>): Promise<T>;
  /** GET that must fail with `status` and `code`; returns the error object */
  fails(path: string, status: number, code: string, headers?: Record<string, string>): Promise<{ code: string; message: string; details?: any }>;
}

export function createApi(base: string): Api {
  const api: Api = {
    base,
    async get(path, init = {}) {
      const method = init.method ?? 'GET';
      const res = await fetch(base + path, { method, headers: init.headers, redirect: 'manual' });
      const text = await res.text();
      const json = /^application\/json/.test(res.headers.get('content-type') ?? '') && text !== '';
      const body = json ? JSON.parse(text) : text;
      checkBody(method, path, res.status, body, text);
      return { status: res.status, headers: res.headers, body, text };
    },
    async ok(path, headers) {
      const res = await api.get(path, { headers });
      if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${res.text.slice(0, 500)}`);
      return res.body;
    },
    async fails(path, status, code, headers) {
      const res = await api.get(path, { headers });
      if (res.status !== status || res.body?.error?.code !== code) {
        throw new Error(`GET ${path}: expected ${status} ${code}, got ${res.status}: ${res.text.slice(0, 500)}`);
      }
      return res.body.error;
    },
  };
  return api;
}

export interface RawRes {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** the bytes as sent (still compressed when Content-Encoding says so) */
  body: Buffer;
  /** the body decoded (node:zlib) as text */
  text: string;
}

/** node:http request: exact headers, raw bytes; the decoded body is validated like any other. */
export function rawRequest(base: string, path: string, opts: { method?: string; headers?: Record<string, string> } = {}): Promise<RawRes> {
  const method = opts.method ?? 'GET';
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { method, headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const body = Buffer.concat(chunks);
          const encoding = body.length > 0 ? res.headers['content-encoding'] : undefined; // HEAD: no body to decode
          const text = (encoding === 'gzip' ? gunzipSync(body) : encoding === 'br' ? brotliDecompressSync(body) : body).toString('utf8');
          const json = /^application\/json/.test(res.headers['content-type'] ?? '') && text !== '';
          checkBody(method, path, res.statusCode!, json ? JSON.parse(text) : text, text);
          resolve({ status: res.statusCode!, headers: res.headers, body, text });
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

// ---- one world and one server per test file ----

export interface Ctx {
  world: World;
  server: Server;
  api: Api;
}

/** Build the world and start a server before the file's tests; stop and clean up after. */
export function useServer(name: string, config: object = UNLIMITED): Ctx {
  const ctx = {} as Ctx;
  beforeAll(async () => {
    ctx.world = await buildWorld(name);
    ctx.server = await startServer(ctx.world.db, { dir: ctx.world.dir, config, name });
    ctx.api = ctx.server.api;
  });
  afterAll(async () => {
    try {
      await ctx.server?.stop();
    } finally {
      if (ctx.world) rmSync(ctx.world.dir, { recursive: true, force: true });
    }
  });
  return ctx;
}

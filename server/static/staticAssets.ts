// Prebuilt files served as they are (the client SDK under /client/, later the explorer pages):
// read once at start from a build output folder, each with its Content-Type, a strong ETag and
// gzip/brotli variants for bodies over 1 KiB (DESIGN §5.6), so a request is a map lookup.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { getAsset } from 'node:sea';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import { BINARY_BUILD } from '../../common/runtime.js';
import { matchesEtag } from '../respond.js';
import { chooseEncoding } from '../transport/negotiate.js';
import { PRECOMPRESS_MIN_BYTES } from '../transport/splice.js';

/** Extensions served, and their types; other files in the folder are not served. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.d.ts': 'text/plain; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticAsset {
  path: string;
  contentType: string;
  etag: string;
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

export interface AssetRequest {
  path: string;
  acceptEncoding: string;
  ifNoneMatch: string;
}

export interface AssetAnswer {
  status: 200 | 304;
  headers: [string, string][];
  parts: Buffer[];
}

export interface StaticAssets {
  /** URL paths served, sorted */
  readonly paths: string[];
  get(path: string): StaticAsset | undefined;
  /** the answer for `req`, or null when no asset has its path */
  answer(req: AssetRequest): AssetAnswer | null;
  /** whether a path under `prefix` (e.g. `/v1/`) can be an asset or a page route (else the request path skips them) */
  servesUnder(prefix: string): boolean;
}

export interface StaticMount {
  /** URL prefix, with leading and trailing slash: `/client/` */
  mount: string;
  /** folder whose files (recursively) are served under `mount` */
  dir: string;
  /** file names to leave out (e.g. tests) */
  exclude?: RegExp;
}

// Assets are not fingerprinted: a cache may keep them but revalidates each use (ETag → 304).
const CACHE_CONTROL = 'public, no-cache';

/** Page routes: a URL path (exact, or a prefix followed by one segment) answered with an asset. */
export interface PageRoutes {
  exact?: Record<string, string>;
  /** `['/vaults/', '/explorer/vault.html']`: `/vaults/<one segment>` */
  segment?: [string, string][];
}

/** HTML runs under this: every script, style, image and request from this origin only. */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Read every mount's files now; a missing folder serves nothing (the build has not run). */
export function loadStaticAssets(mounts: readonly StaticMount[], pages: PageRoutes = {}): StaticAssets {
  const assets = new Map<string, StaticAsset>();
  for (const m of mounts) {
    if (!m.mount.startsWith('/') || !m.mount.endsWith('/')) throw new Error(`static mount "${m.mount}" must start and end with "/"`);
    for (const { rel, read } of BINARY_BUILD ? embeddedFiles(m.mount) : diskFiles(m.dir)) {
      const type = contentTypeOf(rel);
      if (type === undefined || m.exclude?.test(rel)) continue;
      const path = m.mount + rel;
      assets.set(path, lazyAsset(path, type, read()));
    }
  }
  warmVariants([...assets.values()]);
  const paths = [...assets.keys()].sort();
  return {
    paths,
    get: (path) => assets.get(path),
    answer(req) {
      const asset = assets.get(req.path) ?? assets.get(pageAsset(req.path, pages) ?? '');
      return asset === undefined ? null : answerAsset(asset, req);
    },
    servesUnder(prefix) {
      const exact = Object.keys(pages.exact ?? {});
      return (
        paths.some((p) => p.startsWith(prefix)) ||
        exact.some((p) => p.startsWith(prefix)) ||
        (pages.segment ?? []).some(([s]) => s.startsWith(prefix) || prefix.startsWith(s))
      );
    },
  };
}

function pageAsset(path: string, pages: PageRoutes): string | undefined {
  const exact = pages.exact?.[path];
  if (exact !== undefined) return exact;
  for (const [prefix, asset] of pages.segment ?? []) {
    if (path.length > prefix.length && path.startsWith(prefix) && !path.includes('/', prefix.length)) return asset;
  }
  return undefined;
}

export function buildAsset(path: string, contentType: string, identity: Buffer): StaticAsset {
  const etag = `"${createHash('sha1').update(identity).digest('base64url')}"`;
  const asset: StaticAsset = { path, contentType, etag, identity };
  if (identity.length > PRECOMPRESS_MIN_BYTES) {
    asset.gzip = gzipSync(identity, { level: 9 });
    asset.br = brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } });
  }
  return asset;
}

/**
 * An asset whose gzip/brotli variants are made off the start-up path: by the zlib thread pool
 * right after start (warmVariants), or on the first request that wants one before that.
 * Brotli at quality 11 of the explorer and the SDK took ~0.9 s of a cold start on the event loop.
 */
function lazyAsset(path: string, contentType: string, identity: Buffer): StaticAsset {
  const asset: StaticAsset = { path, contentType, etag: `"${createHash('sha1').update(identity).digest('base64url')}"`, identity };
  if (identity.length > PRECOMPRESS_MIN_BYTES) {
    let gz: Buffer | undefined;
    let br: Buffer | undefined;
    Object.defineProperty(asset, 'gzip', { enumerable: true, get: () => (gz ??= gzipSync(identity, GZIP)), set: (v: Buffer) => void (gz ??= v) });
    Object.defineProperty(asset, 'br', {
      enumerable: true,
      get: () => (br ??= brotliCompressSync(identity, brotliOptions(identity))),
      set: (v: Buffer) => void (br ??= v),
    });
    lazy.add(asset);
  }
  return asset;
}

const GZIP = { level: 9 };
const brotliOptions = (b: Buffer) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } });
const lazy = new WeakSet<StaticAsset>();
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

function warmVariants(assets: StaticAsset[]): void {
  const todo = assets.filter((a) => lazy.has(a));
  void (async () => {
    for (const a of todo) {
      a.gzip = await gzipAsync(a.identity, GZIP);
      a.br = await brotliAsync(a.identity, brotliOptions(a.identity));
    }
  })().catch(() => {
    // a variant that failed here is made on first use
  });
}

export function answerAsset(asset: StaticAsset, req: AssetRequest): AssetAnswer {
  const compressed = 'gzip' in asset;
  const headers: [string, string][] = [
    ['ETag', asset.etag],
    ['Cache-Control', CACHE_CONTROL],
  ];
  if (compressed) headers.push(['Vary', 'Accept-Encoding']);
  // (X-Content-Type-Options: nosniff is on every answer: server/exchange.ts EVERY_ANSWER)
  if (asset.contentType.startsWith('text/html')) headers.push(['Content-Security-Policy', PAGE_CSP], ['Referrer-Policy', 'no-referrer']);
  if (matchesEtag(req.ifNoneMatch, asset.etag)) return { status: 304, headers, parts: [] };
  headers.push(['Content-Type', asset.contentType]);
  const encoding = compressed ? chooseEncoding(req.acceptEncoding) : 'identity';
  const body = encoding === 'br' ? asset.br! : encoding === 'gzip' ? asset.gzip! : asset.identity;
  if (encoding !== 'identity') headers.push(['Content-Encoding', encoding]);
  return { status: 200, headers, parts: [body] };
}

function contentTypeOf(rel: string): string | undefined {
  if (rel.endsWith('.d.ts')) return CONTENT_TYPES['.d.ts'];
  return CONTENT_TYPES[extname(rel)];
}

interface MountFile {
  /** '/'-separated path under the mount */
  rel: string;
  read(): Buffer;
}

function diskFiles(dir: string): MountFile[] {
  return listFiles(dir).map((file) => ({ rel: relative(dir, file).split(sep).join('/'), read: () => readFileSync(file) }));
}

/** The single binary carries the built files as SEA assets: `static-manifest.json` lists them per mount. */
function embeddedFiles(mount: string): MountFile[] {
  let manifest: Record<string, string[]>;
  try {
    manifest = JSON.parse(getAsset('static-manifest.json', 'utf8')) as Record<string, string[]>;
  } catch {
    return [];
  }
  return (manifest[mount] ?? []).map((rel) => ({ rel, read: () => Buffer.from(getAsset(`static${mount}${rel}`)) }));
}

function listFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names.sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}

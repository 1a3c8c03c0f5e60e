// The published snapshot on disk (issues #9 "restart without recompute" and #11 "readers past
// one machine"): a directory of immutable, content-addressed files plus one small manifest.
//
//   DIR/manifest.json                    written last, by rename (atomic): names the files below
//   DIR/<role>-<sha256 of content>.<ext> immutable; a name is its checksum, so a torn or
//                                        bit-flipped file is detected and never served
//
// The files hold the computed world (series after the kernels, prices, raw events, registry),
// and `buildSnapshot` over it is deterministic: a reader rebuilds byte-identical pages, ETags
// and `refreshed_at` from the generation and publish time the manifest carries. Column files
// are raw little-endian typed arrays (128-bit amounts as two 64-bit words, never a float or a
// string), laid out in an order derived from `world.json`, so loading is a few copies.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isoSeconds } from '../../model/format/numbers.js';
import type { Registry } from '../../model/rows.js';
import { createEventTable, Dictionary, HASH_WORDS, type EventTable } from '../../model/events.js';
import type { AllocationItem, PriceSeries, TvlSourceState, VaultSeries, World } from '../../model/world.js';
import { createVaultSeries, DEFAULT_SPARE_HOURS } from '../series/vaultSeries.js';
import { buildWalletIndex } from './walletIndex.js';

export const SNAPSHOT_FORMAT = 'vaultd-snapshot/2';
export const MANIFEST = 'manifest.json';

/** What a reader needs besides the world: the cursor secret and the active key digests. */
export interface SnapshotAuth {
  /** base64url HMAC secret of pagination cursors (the same on the writer and every reader) */
  cursor_secret: string;
  keys: { id: string; secret_sha256: string; tier: string }[];
}

export interface SnapshotIdentity {
  generation: number;
  refreshed_at_s: number;
  /** the inputs' stamp the snapshot was built from (store/publishIdentity.ts); null when unknown */
  stamp: string | null;
}

export interface FileEntry {
  name: string;
  bytes: number;
}

export interface SnapshotManifest extends SnapshotIdentity {
  format: typeof SNAPSHOT_FORMAT;
  refreshed_at: string;
  /** when the writer plans its next publish (Unix s), so readers send the same Cache-Control; null when unknown */
  next_publish_at_s?: number | null;
  /** when this manifest was written (RFC 3339); not part of the snapshot's identity */
  written_at: string;
  files: { world: FileEntry; series: FileEntry; prices: FileEntry; events: FileEntry; strings: FileEntry; auth?: FileEntry };
}

/** A snapshot file that is missing, torn or altered: never served. */
export class CorruptSnapshotError extends Error {}

const NAME = /^(world|series|prices|events|strings|auth)-([0-9a-f]{64})\.(json|bin)$/;
const NULL_REF = 0xffffffff;

interface WorldFile {
  registry: Registry;
  series: { vault_id: string; numeraire_decimals: number; publishes_unit_price: boolean; length: number; skipped: number }[];
  prices: { key: string; chain_id: number; address: string; usd: string[] }[];
  allocations: [string, { as_of: number; items: AllocationItem[] }][];
  tvlSources: TvlSourceState[];
  priceProviderErrors: World['priceProviderErrors'];
  end: number;
  chainHeads: [number, { block: number | null; ts: number | null; stalled: boolean }][];
  events: number;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The bytes of each file of `world` (pure; the tests and `publish` share it). */
export function encodeWorld(world: World): EncodedWorld {
  const series = [...world.series.values()];
  const prices = [...world.prices];
  const meta: WorldFile = {
    // RPC URLs may carry provider keys, and nothing published reads them
    registry: { ...world.registry, chains: world.registry.chains.map((c) => ({ ...c, rpc_urls: [] })) },
    series: series.map((s) => ({ vault_id: s.vault_id, numeraire_decimals: s.numeraire_decimals, publishes_unit_price: s.publishes_unit_price, length: s.length, skipped: s.skipped })),
    prices: prices.map(([key, p]) => ({ key, chain_id: p.chain_id, address: p.address, usd: p.usd })),
    allocations: [...world.allocations],
    tvlSources: world.tvlSources,
    priceProviderErrors: world.priceProviderErrors,
    end: world.end,
    chainHeads: [...world.chainHeads],
    events: world.events.length,
  };
  const out: EncodedWorld = {
    world: { ext: 'json', body: Buffer.from(JSON.stringify(meta)) },
    series: { ext: 'bin', body: encodeSeries(series) },
    prices: { ext: 'bin', body: encodePrices(prices.map(([, p]) => p)) },
  };
  const { body, strings } = encodeEvents(world.events);
  out.events = { ext: 'bin', body };
  out.strings = { ext: 'json', body: Buffer.from(JSON.stringify(strings)) };
  return out;
}

const F64 = ['ts', 'unit_price_f', 'apy_7d', 'apy_30d', 'apy_90d'] as const;
const I128 = ['total_assets', 'total_supply', 'published_price', 'unit_price'] as const;
const POINT_BYTES = F64.length * 8 + I128.length * 16;

function bytesOf(a: Float64Array | BigUint64Array, n: number): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, n * a.BYTES_PER_ELEMENT);
}

function encodeSeries(series: VaultSeries[]): Buffer {
  let total = 0;
  for (const s of series) total += s.length * POINT_BYTES;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const s of series) {
    for (const k of F64) at += bytesOf(s[k], s.length).copy(out, at);
    for (const k of I128) at += bytesOf(s[k].words, 2 * s.length).copy(out, at);
  }
  return out;
}

function encodePrices(prices: PriceSeries[]): Buffer {
  let total = 0;
  for (const p of prices) total += p.ts.length * 16;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const p of prices) {
    at += bytesOf(p.ts, p.ts.length).copy(out, at);
    at += bytesOf(p.usd_f, p.usd_f.length).copy(out, at);
  }
  return out;
}

/** Event columns in file order: name and bytes per row (amounts 16, hashes HASH_WORDS × 8). */
const EVENT_COLUMNS = [
  ['chain_id', 8],
  ['block_number', 8],
  ['ts', 8],
  ['log_index', 4],
  ['sub_index', 4],
  ['vault', 4],
  ['wallet', 4],
  ['counterparty', 4],
  ['token', 4],
  ['request', 4],
  ['kind', 1],
] as const;
const pad8 = (n: number) => Math.ceil(n / 8) * 8;
/** the columns (each padded to 8 bytes), then assets and shares as (lo, hi) words, then the hash words */
const eventBytes = (n: number) => EVENT_COLUMNS.reduce((sum, [, w]) => sum + pad8(n * w), 0) + n * (32 + HASH_WORDS * 8);

interface EventStrings {
  vaults: string[];
  wallets: string[];
  tokens: string[];
  kinds: string[];
  requests: string[];
  /** rows whose hashes are not canonical: [row, block_hash, tx_hash] */
  odd: [number, string, string][];
}

const viewBytes = (a: ArrayBufferView, bytes: number) => new Uint8Array(a.buffer, a.byteOffset, bytes);

function encodeEvents(t: EventTable): { body: Buffer; strings: EventStrings } {
  if (!t.hasHashes) throw new Error('a world loaded without event hashes cannot be published to files');
  const n = t.length;
  const out = Buffer.alloc(eventBytes(n));
  let at = 0;
  for (const [k, w] of EVENT_COLUMNS) {
    out.set(viewBytes(t[k], n * w), at);
    at += pad8(n * w);
  }
  out.set(viewBytes(t.assets.words, n * 16), at);
  out.set(viewBytes(t.shares.words, n * 16), at + n * 16);
  out.set(viewBytes(t.hashes, n * HASH_WORDS * 8), at + n * 32);
  const d = t.dict;
  const odd: EventStrings['odd'] = [];
  for (const [i, h] of t.oddHashes) if (i < n) odd.push([i, h.block_hash, h.tx_hash]);
  odd.sort((a, b) => a[0] - b[0]);
  return { body: out, strings: { vaults: d.vaults.values, wallets: d.wallets.values, tokens: d.tokens.values, kinds: d.kinds.values, requests: d.requests.values, odd } };
}

function decodeEvents(buf: Buffer, n: number, strings: EventStrings, need: (ok: boolean, what: string) => void): EventTable {
  need(buf.length === eventBytes(n), 'events of another length');
  const t = createEventTable(n + EVENT_SPARE, {
    vaults: Dictionary.of(strings.vaults),
    wallets: Dictionary.of(strings.wallets),
    tokens: Dictionary.of(strings.tokens),
    kinds: Dictionary.of(strings.kinds),
    requests: Dictionary.of(strings.requests),
  });
  let at = 0;
  for (const [k, w] of EVENT_COLUMNS) {
    viewBytes(t[k], n * w).set(buf.subarray(at, at + n * w));
    at += pad8(n * w);
  }
  viewBytes(t.assets.words, n * 16).set(buf.subarray(at, at + n * 16));
  viewBytes(t.shares.words, n * 16).set(buf.subarray(at + n * 16, at + n * 32));
  viewBytes(t.hashes, n * HASH_WORDS * 8).set(buf.subarray(at + n * 32, at + n * (32 + HASH_WORDS * 8)));
  for (const [i, block_hash, tx_hash] of strings.odd) t.oddHashes.set(i, { block_hash, tx_hash });
  t.length = n;
  // every index must name an entry of its dictionary
  const within = (col: Int32Array, size: number, nullable: boolean) => {
    for (let i = 0; i < n; i++) {
      const v = col[i]!;
      if (v >= size || v < (nullable ? -1 : 0)) return false;
    }
    return true;
  };
  need(within(t.vault, strings.vaults.length, false) && within(t.wallet, strings.wallets.length, false) && within(t.counterparty, strings.wallets.length, true), 'an event names a missing string');
  need(within(t.token, strings.tokens.length, false) && within(t.request, strings.requests.length, true), 'an event names a missing string');
  for (let i = 0; i < n; i++) need(t.kind[i]! < strings.kinds.length, 'an event names a missing kind');
  return t;
}

/** Room for appended events in a table read back from its files. */
const EVENT_SPARE = 65_536;

export type EncodedWorld = Record<string, { ext: 'json' | 'bin'; body: Buffer }>;
export type WorldFiles = Omit<SnapshotManifest['files'], 'auth'>;

/** Write the files of an encoded world (skipping any already there: same name, same content). */
export async function writeWorldFiles(dir: string, encoded: EncodedWorld): Promise<WorldFiles> {
  await mkdir(dir, { recursive: true });
  const files: Record<string, FileEntry> = {};
  for (const [role, { ext, body }] of Object.entries(encoded)) files[role] = await putFile(dir, role, ext, body);
  return files as unknown as WorldFiles;
}

async function putFile(dir: string, role: string, ext: string, body: Buffer): Promise<FileEntry> {
  const name = `${role}-${sha256(body)}.${ext}`;
  const path = join(dir, name);
  // an existing file of that name is reused only when its bytes really are that content (a
  // damaged one is replaced)
  const existing = await stat(path).catch(() => null);
  const intact = existing?.size === body.length && sha256(await readFile(path)) === name.slice(role.length + 1, role.length + 65);
  if (!intact) {
    const tmp = join(dir, `.${name}.${process.pid}.tmp`);
    await writeFile(tmp, body);
    await rename(tmp, path);
  }
  return { name, bytes: body.length };
}

/**
 * Point the manifest at `files` (and a file of `auth`), by rename; then remove the files of
 * all but this and the previous manifest (a reader still loading the previous generation
 * finds its files).
 */
export async function writeManifest(
  dir: string,
  files: WorldFiles,
  identity: SnapshotIdentity,
  auth: SnapshotAuth | null,
  nextPublishAt: number | null = null,
): Promise<SnapshotManifest> {
  const all: SnapshotManifest['files'] = { ...files };
  if (auth) all.auth = await putFile(dir, 'auth', 'json', Buffer.from(JSON.stringify(auth)));
  const previous = await readManifest(dir).catch(() => null);
  const manifest: SnapshotManifest = {
    format: SNAPSHOT_FORMAT,
    generation: identity.generation,
    refreshed_at_s: identity.refreshed_at_s,
    refreshed_at: isoSeconds(identity.refreshed_at_s),
    stamp: identity.stamp,
    next_publish_at_s: nextPublishAt,
    written_at: new Date().toISOString(),
    files: all,
  };
  const tmp = join(dir, `.${MANIFEST}.${process.pid}.tmp`);
  await writeFile(tmp, JSON.stringify(manifest, null, 1));
  await rename(tmp, join(dir, MANIFEST));
  const keep = new Set([...Object.values(manifest.files), ...Object.values(previous?.files ?? {})].map((f) => f.name));
  for (const name of await readdir(dir)) {
    if (NAME.test(name) && !keep.has(name)) await rm(join(dir, name), { force: true });
  }
  return manifest;
}

/** Encode and write `world` under `identity` into `dir` (files, then the manifest). */
export async function writeSnapshotDir(
  dir: string,
  world: World,
  identity: SnapshotIdentity,
  auth: SnapshotAuth | null,
  nextPublishAt: number | null = null,
): Promise<SnapshotManifest> {
  const files = await writeWorldFiles(dir, encodeWorld(world));
  return writeManifest(dir, files, identity, auth, nextPublishAt);
}

/** The manifest of `dir`, or null when there is none; throws CorruptSnapshotError when unreadable. */
export async function readManifest(dir: string): Promise<SnapshotManifest | null> {
  let raw: string;
  try {
    raw = await readFile(join(dir, MANIFEST), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let m: SnapshotManifest;
  try {
    m = JSON.parse(raw) as SnapshotManifest;
  } catch {
    throw new CorruptSnapshotError(`${join(dir, MANIFEST)} is not valid JSON`);
  }
  const roles = ['world', 'series', 'prices', 'events', 'strings'] as const;
  if (m.format !== SNAPSHOT_FORMAT || !Number.isInteger(m.generation) || !Number.isFinite(m.refreshed_at_s) || !m.files || roles.some((r) => !m.files[r] || !NAME.test(m.files[r].name))) {
    throw new CorruptSnapshotError(`${join(dir, MANIFEST)} is not a ${SNAPSHOT_FORMAT} manifest`);
  }
  return m;
}

async function readChecked(dir: string, entry: FileEntry): Promise<Buffer> {
  const path = join(dir, entry.name);
  let body: Buffer;
  try {
    body = await readFile(path);
  } catch (err) {
    throw new CorruptSnapshotError(`${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const want = NAME.exec(entry.name)![2];
  if (body.length !== entry.bytes || sha256(body) !== want) throw new CorruptSnapshotError(`${path} does not match its checksum (torn or altered)`);
  return body;
}

export interface LoadedSnapshot {
  manifest: SnapshotManifest;
  world: World;
  auth: SnapshotAuth | null;
}

/** Read and verify every file a manifest names, and rebuild the world. */
export async function readSnapshotDir(dir: string, manifest?: SnapshotManifest): Promise<LoadedSnapshot> {
  const m = manifest ?? (await readManifest(dir));
  if (!m) throw new CorruptSnapshotError(`${dir} has no ${MANIFEST}`);
  const [worldBuf, seriesBuf, pricesBuf, eventsBuf, stringsBuf, authBuf] = await Promise.all([
    readChecked(dir, m.files.world),
    readChecked(dir, m.files.series),
    readChecked(dir, m.files.prices),
    readChecked(dir, m.files.events),
    readChecked(dir, m.files.strings),
    m.files.auth ? readChecked(dir, m.files.auth) : Promise.resolve(null),
  ]);
  try {
    const meta = JSON.parse(worldBuf.toString('utf8')) as WorldFile;
    const world = decodeWorld(meta, seriesBuf, pricesBuf, eventsBuf, JSON.parse(stringsBuf.toString('utf8')) as EventStrings);
    return { manifest: m, world, auth: authBuf ? (JSON.parse(authBuf.toString('utf8')) as SnapshotAuth) : null };
  } catch (err) {
    // the checksums matched: a file of another format version, or a writer's bug
    if (err instanceof CorruptSnapshotError) throw err;
    throw new CorruptSnapshotError(`${dir}: files do not form a snapshot (${(err as Error).message})`);
  }
}

/** Only the keys and cursor secret a manifest names (a reader re-reads them without the world). */
export async function readSnapshotAuth(dir: string, manifest: SnapshotManifest): Promise<SnapshotAuth | null> {
  if (!manifest.files.auth) return null;
  return JSON.parse((await readChecked(dir, manifest.files.auth)).toString('utf8')) as SnapshotAuth;
}

/** A typed-array view of `len` elements at `offset` of `buf`, copied when misaligned. */
function f64At(buf: Buffer, offset: number, len: number): Float64Array {
  const at = buf.byteOffset + offset;
  if (at % 8 === 0) return new Float64Array(buf.buffer, at, len);
  return new Float64Array(new Uint8Array(buf.subarray(offset, offset + len * 8)).buffer);
}
function u64At(buf: Buffer, offset: number, len: number): BigUint64Array {
  const at = buf.byteOffset + offset;
  if (at % 8 === 0) return new BigUint64Array(buf.buffer, at, len);
  return new BigUint64Array(new Uint8Array(buf.subarray(offset, offset + len * 8)).buffer);
}

function decodeWorld(meta: WorldFile, seriesBuf: Buffer, pricesBuf: Buffer, eventsBuf: Buffer, strings: EventStrings): World {
  const need = (ok: boolean, what: string) => {
    if (!ok) throw new CorruptSnapshotError(`snapshot files disagree: ${what}`);
  };
  const series = new Map<string, VaultSeries>();
  let at = 0;
  for (const m of meta.series) {
    const n = m.length;
    const s = createVaultSeries({ vault_id: m.vault_id, numeraire_decimals: m.numeraire_decimals, vault_type: m.publishes_unit_price ? 'aera_v3' : '' }, n + DEFAULT_SPARE_HOURS);
    need(at + n * POINT_BYTES <= seriesBuf.length, 'series shorter than its index');
    for (const k of F64) {
      s[k].set(f64At(seriesBuf, at, n));
      at += n * 8;
    }
    for (const k of I128) {
      s[k].words.set(u64At(seriesBuf, at, 2 * n));
      at += n * 16;
    }
    s.length = n;
    s.skipped = m.skipped;
    s.publishes_unit_price = m.publishes_unit_price;
    series.set(m.vault_id, s);
  }
  need(at === seriesBuf.length, 'series longer than its index');

  const prices = new Map<string, PriceSeries>();
  at = 0;
  for (const p of meta.prices) {
    const n = p.usd.length;
    need(at + 16 * n <= pricesBuf.length, 'prices shorter than their index');
    const ts = Float64Array.from(f64At(pricesBuf, at, n));
    const usdF = Float64Array.from(f64At(pricesBuf, at + 8 * n, n));
    at += 16 * n;
    prices.set(p.key, { chain_id: p.chain_id, address: p.address, ts, usd: p.usd, usd_f: usdF });
  }
  need(at === pricesBuf.length, 'prices longer than their index');

  const events = decodeEvents(eventsBuf, meta.events, strings, need);
  return {
    registry: meta.registry,
    vaults: new Map(meta.registry.vaults.map((v) => [v.vault_id, v])),
    series,
    prices,
    events,
    walletIndex: buildWalletIndex(events),
    allocations: new Map(meta.allocations),
    tvlSources: meta.tvlSources,
    priceProviderErrors: meta.priceProviderErrors,
    end: meta.end,
    chainHeads: new Map(meta.chainHeads),
  };
}

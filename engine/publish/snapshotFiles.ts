// The published snapshot on disk (issues #9 "restart without recompute" and #11 "readers past
// one machine"): a directory of immutable, content-addressed files plus one small manifest.
//
//   DIR/manifest.json                    written last, by rename (atomic): names the files below
//   DIR/<role>-<sha256 of content>.<ext> immutable; a name is its checksum (and the manifest
//                                        holds the big files' CRC-32 too), so a torn or
//                                        bit-flipped file is detected and never served
//
// The files hold the computed world (series after the kernels, prices, raw events, registry,
// the wallet index), and `buildSnapshot` over it is deterministic: a reader rebuilds
// byte-identical pages, ETags and `refreshed_at` from the generation and publish time the
// manifest carries. Column files are raw little-endian typed arrays (128-bit amounts as two
// 64-bit words, never a float or a string), laid out in an order derived from `world.json`:
// they are written streaming (engine/publish/fileIo.ts) and read straight into the arrays that
// keep them by threads that check each file's CRC-32 as they read; nothing in them is looked at
// before every check has passed.
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isoSeconds } from '../../model/format/numbers.js';
import type { Registry } from '../../model/rows.js';
import { createEventTable, Dictionary, HASH_WORDS, type EventTable } from '../../model/events.js';
import type { AllocationItem, PositionItemsRef, PriceSeries, TvlSourceState, VaultSeries, WalletIndex, World } from '../../model/world.js';
import { createVaultSeries, DEFAULT_SPARE_HOURS } from '../series/vaultSeries.js';
import { planReader, readPlanned, removeStaleTemps, sha256, tempFile, writeStreamed, type ByteSink, type FileReader, type PlannedFile } from './fileIo.js';

export const SNAPSHOT_FORMAT = 'vaultd-snapshot/8';

/** Threads that read a snapshot's big files (page faults on fresh memory are most of a restart's read). */
const READ_THREADS = 2;
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
  /** zlib's CRC-32 of the content: what a reader checks the big column files against as it reads them */
  crc32?: number;
}

/** The column files read by threads (checked by their CRC-32); the JSON files are checked by their SHA-256 names. */
const COLUMN_FILES = ['series', 'events', 'wallets', 'positions'] as const;

export interface SnapshotManifest extends SnapshotIdentity {
  format: typeof SNAPSHOT_FORMAT;
  refreshed_at: string;
  /** when the writer plans its next publish (Unix s), so readers send the same Cache-Control; null when unknown */
  next_publish_at_s?: number | null;
  /** when this manifest was written (RFC 3339); not part of the snapshot's identity */
  written_at: string;
  files: {
    world: FileEntry;
    series: FileEntry;
    prices: FileEntry;
    events: FileEntry;
    strings: FileEntry;
    wallets: FileEntry;
    positions: FileEntry;
    auth?: FileEntry;
  };
}

/** A snapshot file that is missing, torn or altered: never served. */
export class CorruptSnapshotError extends Error {}

const NAME = /^(world|series|prices|events|strings|wallets|positions|auth)-([0-9a-f]{64})\.(json|bin|txt)$/;
const ROLES = ['world', 'series', 'prices', 'events', 'strings', 'wallets', 'positions'] as const;

interface WorldFile {
  registry: Registry;
  series: { vault_id: string; numeraire_decimals: number; publishes_unit_price: boolean; length: number; skipped: number }[];
  /** `usd` only when a value holds a newline (else the strings follow the doubles in the prices file) */
  prices: { key: string; chain_id: number; address: string; n: number; usd?: string[] }[];
  allocations: [string, { as_of: number; items: AllocationItem[] }][];
  tvlSources: TvlSourceState[];
  priceProviderErrors: World['priceProviderErrors'];
  end: number;
  chainHeads: [number, { block: number | null; ts: number | null; stalled: boolean }][];
  /** what views of the past read (absent in files written before they existed) */
  history?: {
    allocations: [string, NonNullable<World['history']>['allocations'] extends Map<string, infer A> ? A : never][];
    tvlValues: [string, NonNullable<World['history']>['tvlValues'] extends Map<string, infer V> ? V : never][];
  };
  /** async requests' terms (DESIGN §11.8), the tip as a decimal string (absent in files written before them) */
  requestTerms?: [string, { deadline: number | null; solver_tip: string | null }][];
  events: number;
  wallets: { wallets: number; positions: number };
  /** the position items (engine/positions/positionItems.ts): their JSON's length, and the skipped-rows messages */
  items: { bytes: number; skipped: [number, { rows: number; message: string }][]; returns_bytes: number | null };
}

export type WorldFiles = Omit<SnapshotManifest['files'], 'auth'>;

// ---- series: per vault, its columns of `length` points; the published unit price only where the family publishes one.
// No APY columns: a restored (serving) world computes a point's APY when it reads it (apyAt).
const F64 = ['ts', 'block', 'unit_price_f'] as const;
const seriesI128 = (s: Pick<VaultSeries, 'publishes_unit_price'>) =>
  s.publishes_unit_price
    ? (['total_assets', 'total_supply', 'published_price', 'unit_price'] as const)
    : (['total_assets', 'total_supply', 'unit_price'] as const);

const bytes = (a: ArrayBufferView, n: number) => new Uint8Array(a.buffer, a.byteOffset, n);

async function writeSeries(sink: ByteSink, series: readonly VaultSeries[]): Promise<void> {
  for (const s of series) {
    for (const k of F64) sink.bytes(bytes(s[k], s.length * 8));
    for (const k of seriesI128(s)) sink.bytes(bytes(s[k].words, s.length * 16));
    await sink.breathe();
  }
}

function readSeries(r: FileReader, meta: WorldFile['series']): Map<string, VaultSeries> {
  const out = new Map<string, VaultSeries>();
  for (const m of meta) {
    const n = m.length;
    const s = createVaultSeries({ vault_id: m.vault_id, numeraire_decimals: m.numeraire_decimals, vault_type: '' }, n + DEFAULT_SPARE_HOURS, { apy: false });
    s.publishes_unit_price = m.publishes_unit_price;
    for (const k of F64) r.into(bytes(s[k], n * 8));
    for (const k of seriesI128(s)) r.into(bytes(s[k].words, n * 16));
    s.length = n;
    s.skipped = m.skipped;
    out.set(m.vault_id, s);
  }
  return out;
}

// ---- prices: per token, its hours and the prices as doubles; then the exact decimal strings,
// one per line (473 k on the benchmark world: in world.json, JSON.parse copied each, ~130 ms
// of a restart's main thread and its garbage); a token with a value holding a newline keeps
// its strings in world.json
/** `meta`: the world file's entries of `prices`, in order (a token with `usd` there has no lines here). */
async function writePrices(sink: ByteSink, prices: readonly PriceSeries[], meta: WorldFile['prices']): Promise<void> {
  for (const p of prices) {
    sink.bytes(p.ts);
    sink.bytes(p.usd_f);
  }
  await writeLines(
    sink,
    prices.filter((_, k) => meta[k]!.usd === undefined).map((p) => p.usd),
  );
}

function readPrices(buf: Buffer, meta: WorldFile['prices'], need: (ok: boolean, what: string) => void): Map<string, PriceSeries> {
  const prices = new Map<string, PriceSeries>();
  let at = 0;
  for (const p of meta) {
    need(at + 16 * p.n <= buf.length && (p.usd === undefined || p.usd.length === p.n), 'prices shorter than their index');
    prices.set(p.key, { chain_id: p.chain_id, address: p.address, ts: f64Copy(buf, at, p.n), usd: p.usd ?? [], usd_f: f64Copy(buf, at + 8 * p.n, p.n) });
    at += 16 * p.n;
  }
  const lines = meta.filter((p) => p.usd === undefined);
  const values = readLines(
    buf.toString('utf8', at),
    lines.map((p) => p.n),
    need,
    'prices hold another number of values than their index',
  );
  lines.forEach((p, k) => (prices.get(p.key)!.usd = values[k]!));
  return prices;
}

// ---- events: the table's columns (each padded to 8 bytes), amounts, hash words
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
const PAD = new Uint8Array(8);

interface EventStrings {
  vaults: string[];
  wallets: string[];
  tokens: string[];
  kinds: string[];
  requests: string[];
  /** rows whose hashes are not canonical: [row, block_hash, tx_hash] */
  odd: [number, string, string][];
}

async function writeEvents(sink: ByteSink, t: EventTable): Promise<void> {
  if (!t.hasHashes) throw new Error('a world loaded without event hashes cannot be published to files');
  const n = t.length;
  const chunked = async (b: Uint8Array) => {
    for (let at = 0; at < b.length; at += 4 << 20) {
      sink.bytes(b.subarray(at, Math.min(b.length, at + (4 << 20))));
      await sink.breathe();
    }
  };
  for (const [k, w] of EVENT_COLUMNS) {
    await chunked(bytes(t[k], n * w));
    if (pad8(n * w) > n * w) sink.bytes(PAD.subarray(0, pad8(n * w) - n * w));
  }
  await chunked(bytes(t.assets.words, n * 16));
  await chunked(bytes(t.shares.words, n * 16));
  await chunked(bytes(t.hashes, n * HASH_WORDS * 8));
}

function eventStrings(t: EventTable): EventStrings {
  const d = t.dict;
  const odd: EventStrings['odd'] = [];
  for (const [i, h] of t.oddHashes) if (i < t.length) odd.push([i, h.block_hash, h.tx_hash]);
  odd.sort((a, b) => a[0] - b[0]);
  return { vaults: d.vaults.values, wallets: d.wallets.values, tokens: d.tokens.values, kinds: d.kinds.values, requests: d.requests.values, odd };
}

/**
 * The strings file: a JSON line with the short lists, then the values of the long ones (wallets
 * and request hashes: hundreds of thousands) one per line. Splitting lines gives V8 slices of
 * one string where JSON.parse copies every value: 104 against 224 ms at 418 k values on the
 * benchmark world, most of the difference garbage collection on the main thread while the
 * column files are read. A list with a newline in a value stays in the JSON line.
 */
const LINE_LISTS = ['wallets', 'requests'] as const;

async function writeStrings(sink: ByteSink, strings: EventStrings): Promise<void> {
  const head: Partial<EventStrings> & { lines: Partial<Record<(typeof LINE_LISTS)[number], number>> } = { ...strings, lines: {} };
  const values: string[][] = [];
  for (const k of LINE_LISTS) {
    if (!lineSafe(strings[k])) continue;
    delete head[k];
    head.lines[k] = strings[k].length;
    values.push(strings[k]);
  }
  sink.bytes(Buffer.from(`${JSON.stringify(head)}\n`));
  await writeLines(sink, values);
}

/**
 * The values of `lists`, in order, joined by newlines (as one join of them all would make it),
 * in runs of STRING_RUN lines with the event loop running between (418 k values took 180 ms in
 * one piece).
 */
async function writeLines(sink: ByteSink, lists: readonly (readonly string[])[]): Promise<void> {
  let first = true;
  for (const list of lists) {
    for (let at = 0; at < list.length; at += STRING_RUN) {
      sink.bytes(Buffer.from(`${first ? '' : '\n'}${list.slice(at, at + STRING_RUN).join('\n')}`));
      first = false;
      await sink.breathe();
    }
  }
}

const STRING_RUN = 4096;

/** Whether `values` can be written one per line (none holds a newline). */
const lineSafe = (values: readonly string[]): boolean => !values.some((v) => v.includes('\n'));

/** What writeLines wrote for lists of `counts` values, split back into those lists; `need` fails on another number of lines. */
function readLines(text: string, counts: readonly number[], need: (ok: boolean, what: string) => void, what: string): string[][] {
  const total = counts.reduce((a, b) => a + b, 0);
  const values = total === 0 && text === '' ? [] : text.split('\n');
  need(values.length === total, what);
  let at = 0;
  return counts.map((n) => values.slice(at, (at += n)));
}

function decodeStrings(buf: Buffer, need: (ok: boolean, what: string) => void): EventStrings {
  const text = buf.toString('utf8');
  const nl = text.indexOf('\n');
  need(nl >= 0, 'the strings file has no head line');
  const head = JSON.parse(text.slice(0, nl)) as EventStrings & { lines?: Partial<Record<(typeof LINE_LISTS)[number], number>> };
  const lines = head.lines ?? {};
  delete head.lines;
  const listed = LINE_LISTS.filter((k) => lines[k] !== undefined);
  const values = readLines(
    text.slice(nl + 1),
    listed.map((k) => lines[k]!),
    need,
    'the strings file holds another number of values than its head says',
  );
  listed.forEach((k, j) => (head[k] = values[j]!));
  for (const k of ['vaults', 'wallets', 'tokens', 'kinds', 'requests', 'odd'] as const) need(Array.isArray(head[k]), `the strings file has no ${k}`);
  return head;
}

/** The event table as planned on `r`; `finish` gives it its strings and checks its indices, once its bytes are read. */
function readEvents(r: FileReader, n: number): { table: EventTable; finish: (strings: EventStrings, need: (ok: boolean, what: string) => void) => void } {
  const t = createEventTable(n + EVENT_SPARE);
  for (const [k, w] of EVENT_COLUMNS) {
    r.into(bytes(t[k], n * w));
    r.skip(pad8(n * w) - n * w);
  }
  r.into(bytes(t.assets.words, n * 16));
  r.into(bytes(t.shares.words, n * 16));
  r.into(bytes(t.hashes, n * HASH_WORDS * 8));
  t.length = n;
  const finish = (strings: EventStrings, need: (ok: boolean, what: string) => void) => {
    t.dict = {
      vaults: Dictionary.of(strings.vaults),
      wallets: Dictionary.of(strings.wallets),
      tokens: Dictionary.of(strings.tokens),
      kinds: Dictionary.of(strings.kinds),
      requests: Dictionary.of(strings.requests),
    };
    for (const [i, block_hash, tx_hash] of strings.odd) t.oddHashes.set(i, { block_hash, tx_hash });
    // every index must name an entry of its dictionary
    const within = (col: Int32Array, size: number, nullable: boolean) => {
      for (let i = 0; i < n; i++) {
        const v = col[i]!;
        if (v >= size || v < (nullable ? -1 : 0)) return false;
      }
      return true;
    };
    need(
      within(t.vault, strings.vaults.length, false) && within(t.wallet, strings.wallets.length, false) && within(t.counterparty, strings.wallets.length, true),
      'an event names a missing string',
    );
    need(within(t.token, strings.tokens.length, false) && within(t.request, strings.requests.length, true), 'an event names a missing string');
    for (let i = 0; i < n; i++) need(t.kind[i]! < strings.kinds.length, 'an event names a missing kind');
  };
  return { table: t, finish };
}

/** Room for appended events in a table read back from its files. */
const EVENT_SPARE = 65_536;

// ---- wallets: the wallet index's arrays (engine/publish/walletIndex.ts), so a start does not rebuild it
const INDEX_ARRAYS = ['activityStart', 'activity', 'posWallet', 'posVault', 'rowStart', 'rows', 'walletPosStart', 'walletPos'] as const;
function indexLengths(wallets: number, positions: number, events: number): Record<(typeof INDEX_ARRAYS)[number], number> {
  return {
    activityStart: wallets + 1,
    activity: events,
    posWallet: positions,
    posVault: positions,
    rowStart: positions + 1,
    rows: events,
    walletPosStart: wallets + 1,
    walletPos: positions,
  };
}

function writeWallets(sink: ByteSink, x: WalletIndex): void {
  for (const k of INDEX_ARRAYS) sink.bytes(x[k]);
}

function readWallets(r: FileReader, meta: WorldFile['wallets'], events: number): WalletIndex {
  const len = indexLengths(meta.wallets, meta.positions, events);
  const x = { wallets: meta.wallets, positions: meta.positions } as WalletIndex;
  for (const k of INDEX_ARRAYS) {
    // on shared memory: the index crosses to pool workers without copies
    const a = new Int32Array(new SharedArrayBuffer(Math.max(len[k], 1) * 4), 0, len[k]);
    r.into(a);
    x[k] = a;
  }
  return x;
}

// ---- positions: each position's item JSON, its offsets and flags
function writePositionItems(sink: ByteSink, items: PositionItemsRef): void {
  sink.bytes(items.offsets);
  sink.bytes(items.flags);
  const pad = pad8(items.flags.length) - items.flags.length;
  if (pad > 0) sink.bytes(PAD.subarray(0, pad));
  sink.bytes(items.json);
  // each open position's returns (DESIGN §11.5): their offsets, then their JSON
  if (items.returns) {
    sink.bytes(items.returns.offsets);
    sink.bytes(items.returns.json);
  }
}

function readPositionItems(r: FileReader, positions: number, meta: WorldFile['items']): PositionItemsRef {
  const offsets = new Int32Array(positions + 1);
  const flags = new Uint8Array(positions);
  const json = new Uint8Array(new SharedArrayBuffer(meta.bytes)); // as a publish makes it (mergePositions)
  r.into(offsets);
  r.into(flags);
  r.skip(pad8(positions) - positions);
  r.into(json);
  let returns: PositionItemsRef['returns'] = null;
  if (meta.returns_bytes !== null) {
    returns = { offsets: new Int32Array(positions + 1), json: new Uint8Array(new SharedArrayBuffer(meta.returns_bytes)) };
    r.into(returns.offsets);
    r.into(returns.json);
  }
  return { positions, json, offsets, flags, skipped: new Map(meta.skipped), returns };
}

/**
 * Write the files of `world` into `dir` (streamed: no file is held in memory whole). The world
 * must not change while this runs: pass a published snapshot's world (frozen, engine/publish/walletIndex.ts).
 */
export async function writeWorldFiles(dir: string, world: World): Promise<WorldFiles> {
  await mkdir(dir, { recursive: true });
  removeStaleTemps(dir); // what a writer killed mid-write left
  await removeUnlisted(dir);
  const items = world.positionItems;
  if (!items || items.positions !== world.walletIndex.positions) throw new Error('a world is published to files with its position items');
  // the files hold the returns: a restart and the snapshot's readers serve them as they are
  if (items.returns === null) await items.returnsLater?.();
  const series = [...world.series.values()];
  const prices = [...world.prices];
  const meta: WorldFile = {
    // RPC URLs may carry provider keys, and nothing published reads them
    registry: { ...world.registry, chains: world.registry.chains.map((c) => ({ ...c, rpc_urls: [] })) },
    series: series.map((s) => ({
      vault_id: s.vault_id,
      numeraire_decimals: s.numeraire_decimals,
      publishes_unit_price: s.publishes_unit_price,
      length: s.length,
      skipped: s.skipped,
    })),
    prices: prices.map(([key, p]) => ({ key, chain_id: p.chain_id, address: p.address, n: p.ts.length, ...(lineSafe(p.usd) ? {} : { usd: p.usd }) })),
    allocations: [...world.allocations],
    tvlSources: world.tvlSources,
    priceProviderErrors: world.priceProviderErrors,
    end: world.end,
    chainHeads: [...world.chainHeads],
    ...(world.history ? { history: { allocations: [...world.history.allocations], tvlValues: [...world.history.tvlValues] } } : {}),
    ...(world.requestTerms
      ? { requestTerms: [...world.requestTerms].map(([k, t]) => [k, { deadline: t.deadline, solver_tip: t.solver_tip?.toString() ?? null }] as const) }
      : {}),
    events: world.events.length,
    wallets: { wallets: world.walletIndex.wallets, positions: world.walletIndex.positions },
    items: { bytes: items.json.length, skipped: [...items.skipped], returns_bytes: items.returns ? items.returns.json.length : null },
  };
  return {
    world: await writeStreamed(dir, 'world', 'json', (sink) => writeJsonObject(sink, meta)),
    series: await writeStreamed(dir, 'series', 'bin', (sink) => writeSeries(sink, series)),
    prices: await writeStreamed(dir, 'prices', 'bin', (sink) =>
      writePrices(
        sink,
        prices.map(([, p]) => p),
        meta.prices,
      ),
    ),
    events: await writeStreamed(dir, 'events', 'bin', (sink) => writeEvents(sink, world.events)),
    strings: await writeStreamed(dir, 'strings', 'txt', (sink) => writeStrings(sink, eventStrings(world.events))),
    wallets: await writeStreamed(dir, 'wallets', 'bin', (sink) => writeWallets(sink, world.walletIndex)),
    positions: await writeStreamed(dir, 'positions', 'bin', (sink) => writePositionItems(sink, items)),
  };
}

/**
 * JSON.stringify(obj), written a member at a time and a long array an element at a time, the
 * event loop running every JSON_RUN bytes (the benchmark world's was 117 ms in one piece: its
 * prices' 473 k decimal strings).
 */
export async function writeJsonObject(sink: ByteSink, obj: object): Promise<void> {
  let pending = '{';
  const emit = async (text: string) => {
    pending += text;
    if (pending.length < JSON_RUN) return;
    sink.bytes(Buffer.from(pending));
    pending = '';
    await sink.breathe();
  };
  let first = true;
  for (const [key, value] of Object.entries(obj)) {
    const text = Array.isArray(value) ? '' : JSON.stringify(value);
    if (text === undefined) continue; // as JSON.stringify leaves such a member out
    await emit(`${first ? '' : ','}${JSON.stringify(key)}:${Array.isArray(value) ? '[' : text}`);
    first = false;
    if (!Array.isArray(value)) continue;
    for (let i = 0; i < value.length; i++) await emit(`${i === 0 ? '' : ','}${JSON.stringify(value[i]) ?? 'null'}`);
    await emit(']');
  }
  sink.bytes(Buffer.from(`${pending}}`));
}

const JSON_RUN = 1 << 20;

async function putFile(dir: string, role: string, ext: string, body: Buffer): Promise<FileEntry> {
  const name = `${role}-${sha256(body)}.${ext}`;
  const path = join(dir, name);
  // an existing file of that name is reused only when its bytes really are that content (a
  // damaged one is replaced)
  const existing = await stat(path).catch(() => null);
  const intact = existing?.size === body.length && sha256(await readFile(path)) === name.slice(role.length + 1, role.length + 65);
  if (!intact) {
    await writeRenamed(dir, name, path, body);
  }
  return { name, bytes: body.length };
}

/** `body` written to a temp file in `dir`, then renamed to `path`. */
async function writeRenamed(dir: string, stem: string, path: string, body: string | Buffer): Promise<void> {
  const temp = tempFile(dir, stem);
  try {
    await writeFile(temp.path, body);
    await rename(temp.path, path);
  } catch (err) {
    await rm(temp.path, { force: true });
    throw err;
  } finally {
    temp.done();
  }
}

/**
 * Point the manifest at `files` (and a file of `auth`), by rename; then remove the files of
 * all but this and the previous manifest (a reader still loading the previous generation
 * finds its files until the next write starts: removeUnlisted).
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
  await writeRenamed(dir, MANIFEST, join(dir, MANIFEST), JSON.stringify(manifest, null, 1));
  await removeAllBut(dir, [manifest, previous]);
  return manifest;
}

/** Remove the snapshot files of `dir` that none of `manifests` names (other files are left alone). */
async function removeAllBut(dir: string, manifests: readonly (SnapshotManifest | null)[]): Promise<void> {
  const keep = new Set(manifests.flatMap((m) => Object.values(m?.files ?? {}).map((f) => f.name)));
  for (const name of await readdir(dir)) {
    if (NAME.test(name) && !keep.has(name)) await rm(join(dir, name), { force: true });
  }
}

/**
 * Before a write: remove the files the manifest does not name (the previous generation's,
 * kept for readers still loading it when the manifest moved on, a publish interval ago), so a
 * directory holds at most two generations while a third is written — not three: on a
 * 10,000-vault world (~20 GB a generation) that is the difference between fitting a 64 GB
 * disk and not (bench/README.md "Disk per million snapshots"). A reader that opened a file
 * keeps reading it (an unlinked file lives while open); one that has not yet and finds it
 * gone loads the manifest again. Without a readable manifest nothing is removed.
 */
export async function removeUnlisted(dir: string): Promise<void> {
  const manifest = await readManifest(dir).catch(() => null);
  if (manifest !== null) await removeAllBut(dir, [manifest]);
}

/** Write the files of `world` under `identity` into `dir`, then the manifest. */
export async function writeSnapshotDir(
  dir: string,
  world: World,
  identity: SnapshotIdentity,
  auth: SnapshotAuth | null,
  nextPublishAt: number | null = null,
): Promise<SnapshotManifest> {
  const files = await writeWorldFiles(dir, world);
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
  const roles = ROLES;
  if (
    m.format !== SNAPSHOT_FORMAT ||
    !Number.isInteger(m.generation) ||
    !Number.isFinite(m.refreshed_at_s) ||
    !m.files ||
    roles.some((r) => !m.files[r] || !NAME.test(m.files[r].name)) ||
    COLUMN_FILES.some((r) => !Number.isInteger(m.files[r].crc32))
  ) {
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

/**
 * Read and verify every file a manifest names, and rebuild the world. The column files are read
 * straight into the world's arrays by threads checking their CRC-32; nothing is returned (or
 * served, or even looked at) unless every checksum matches.
 */
export async function readSnapshotDir(dir: string, manifest?: SnapshotManifest): Promise<LoadedSnapshot> {
  const m = manifest ?? (await readManifest(dir));
  if (!m) throw new CorruptSnapshotError(`${dir} has no ${MANIFEST}`);
  // a torn file is refused before anything is read
  for (const f of COLUMN_FILES.map((r) => m.files[r])) {
    const st = await stat(join(dir, f.name)).catch(() => null);
    if (!st) throw new CorruptSnapshotError(`${join(dir, f.name)} cannot be read (missing)`);
    if (st.size !== f.bytes) throw new CorruptSnapshotError(`${join(dir, f.name)} does not match its checksum (torn: ${st.size} of ${f.bytes} bytes)`);
  }
  const worldBuf = await readChecked(dir, m.files.world);
  let loaded: { world: World; auth: SnapshotAuth | null };
  try {
    loaded = await decodeWorld(dir, m, JSON.parse(worldBuf.toString('utf8')) as WorldFile);
  } catch (err) {
    // the checksums matched: a file of another format version, or a writer's bug
    if (err instanceof CorruptSnapshotError) throw err;
    throw new CorruptSnapshotError(`${dir}: files do not form a snapshot (${(err as Error).message})`);
  }
  return { manifest: m, ...loaded };
}

/** Only the keys and cursor secret a manifest names (a reader re-reads them without the world). */
export async function readSnapshotAuth(dir: string, manifest: SnapshotManifest): Promise<SnapshotAuth | null> {
  if (!manifest.files.auth) return null;
  return JSON.parse((await readChecked(dir, manifest.files.auth)).toString('utf8')) as SnapshotAuth;
}

/** A typed-array view of `len` doubles at `offset` of `buf`, copied (into its own memory). */
function f64Copy(buf: Buffer, offset: number, len: number): Float64Array {
  return new Float64Array(new Uint8Array(buf.subarray(offset, offset + len * 8)).buffer);
}

/**
 * The world of `meta`: the column files' threads start first (the arrays they fill are made
 * here), and the small files are read and parsed on this thread while they run.
 */
async function decodeWorld(dir: string, m: SnapshotManifest, meta: WorldFile): Promise<{ world: World; auth: SnapshotAuth | null }> {
  const need = (ok: boolean, what: string) => {
    if (!ok) throw new CorruptSnapshotError(`snapshot files disagree: ${what}`);
  };
  // where every byte of the column files goes (a view not on shared memory, as the positions'
  // offsets and flags, is read here at once), then the threads' read
  const consume = <R extends FileReader, T>(r: R, entry: FileEntry, f: (r: R) => T): T => {
    try {
      const out = f(r);
      need(r.remaining() === 0, `${entry.name} is longer than its index`);
      return out;
    } finally {
      r.close();
    }
  };
  const plan = <T>(entry: FileEntry, f: (r: FileReader) => T): { out: T; plan: PlannedFile } =>
    consume(planReader(join(dir, entry.name), entry.bytes), entry, (r) => ({ out: f(r), plan: r.plan }));
  const series = plan(m.files.series, (r) => readSeries(r, meta.series));
  const events = plan(m.files.events, (r) => readEvents(r, meta.events));
  const wallets = plan(m.files.wallets, (r) => readWallets(r, meta.wallets, meta.events));
  const positions = plan(m.files.positions, (r) => readPositionItems(r, meta.wallets.positions, meta.items));
  const reading = readPlanned([series.plan, events.plan, wallets.plan, positions.plan], READ_THREADS);
  reading.catch(() => undefined); // awaited below; an error here first must not leave it unhandled

  const [pricesBuf, stringsBuf, authBuf] = await Promise.all([
    readChecked(dir, m.files.prices),
    readChecked(dir, m.files.strings),
    m.files.auth ? readChecked(dir, m.files.auth) : Promise.resolve(null),
  ]);
  const strings = decodeStrings(stringsBuf, need);
  const auth = authBuf ? (JSON.parse(authBuf.toString('utf8')) as SnapshotAuth) : null;
  need(wallets.out.wallets <= strings.wallets.length, 'the wallet index names missing wallets');
  const positionItems = positions.out;
  const prices = readPrices(pricesBuf, meta.prices, need); // while the threads read
  const crcs = await reading;
  COLUMN_FILES.forEach((role, k) => {
    if (crcs[k] !== m.files[role].crc32) throw new CorruptSnapshotError(`${join(dir, m.files[role].name)} does not match its checksum (torn or altered)`);
  });
  events.out.finish(strings, need);
  const world: World = {
    registry: meta.registry,
    vaults: new Map(meta.registry.vaults.map((v) => [v.vault_id, v])),
    series: series.out,
    prices,
    events: events.out.table,
    walletIndex: wallets.out,
    positionItems,
    allocations: new Map(meta.allocations),
    tvlSources: meta.tvlSources,
    priceProviderErrors: meta.priceProviderErrors,
    end: meta.end,
    chainHeads: new Map(meta.chainHeads),
    ...(meta.history ? { history: { allocations: new Map(meta.history.allocations), tvlValues: new Map(meta.history.tvlValues) } } : {}),
    ...(meta.requestTerms
      ? {
          requestTerms: new Map(
            meta.requestTerms.map(([k, t]) => [k, { deadline: t.deadline, solver_tip: t.solver_tip === null ? null : BigInt(t.solver_tip) }]),
          ),
        }
      : {}),
  };
  return { world, auth };
}

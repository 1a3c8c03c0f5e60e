// Streamed, checksummed file I/O for the published snapshot's big files: a writer appends typed
// arrays to a temp file while hashing them (SHA-256 for the content address, CRC-32 for the
// reader's check; no whole-file buffer: the benchmark world's series are 1.6 GB) and renames it
// to its content address. A reader first plans where every byte goes (the typed arrays that will
// hold them, on SharedArrayBuffers), then threads copy the files straight into them, each a
// share of the bytes, taking the CRC-32 of what they read as they go: a restart's read is
// bound by page faults on fresh memory, and those run on every core at once.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readdirSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { Worker } from 'node:worker_threads';
import { crc32Combine } from '../../common/crc32.js';

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Where a part's bytes go. */
export interface ByteSink {
  bytes(view: ArrayBufferView): void;
  /** lets the event loop run after every few MB written (a server keeps answering meanwhile) */
  breathe(): Promise<void>;
}

const BREATHE_BYTES = 8 << 20;

/** Temp files this process is writing (not yet renamed to their names). */
const writing = new Set<string>();

/**
 * A temp file in `dir` named for this process (`.<stem>.<pid>.<random>.tmp`), removed if the
 * process exits before `done()`: a stop whose grace runs out mid-write (common/signals.ts; the
 * benchmark world's series file takes seconds) leaves no 1.6 GB orphan. What a crash or a kill
 * leaves, `removeStaleTemps` removes on the next write.
 */
export function tempFile(dir: string, stem: string): { path: string; done(): void } {
  if (writing.size === 0) process.once('exit', removeOwnTemps);
  const path = join(dir, `.${stem}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  writing.add(path);
  return {
    path,
    done() {
      writing.delete(path);
      if (writing.size === 0) process.off('exit', removeOwnTemps);
    },
  };
}

function removeOwnTemps(): void {
  for (const path of writing) rmSync(path, { force: true });
}

const TEMP = /^\..+\.(\d+)\.[0-9a-z]+\.tmp$/;

/** Remove the temp files in `dir` of processes no longer running (killed mid-write); returns their names. */
export function removeStaleTemps(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const stale = names.filter((name) => {
    const pid = Number(TEMP.exec(name)?.[1] ?? NaN);
    return Number.isSafeInteger(pid) && pid !== process.pid && !running(pid);
  });
  for (const name of stale) rmSync(join(dir, name), { force: true });
  return stale;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/**
 * Write what `produce` appends into DIR/<role>-<sha256>.<ext> (via a temp file and a rename);
 * returns the name and size.
 */
export async function writeStreamed(dir: string, role: string, ext: string, produce: (sink: ByteSink) => void | Promise<void>): Promise<{ name: string; bytes: number; crc32: number }> {
  const temp = tempFile(dir, role);
  const tmp = temp.path;
  const fd = openSync(tmp, 'w');
  const hash = createHash('sha256');
  let crc = 0;
  let size = 0;
  let since = 0;
  try {
    await produce({
      bytes(view) {
        const b = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
        hash.update(b);
        crc = zlibCrc32(b, crc);
        size += b.length;
        since += b.length;
      },
      async breathe() {
        if (since < BREATHE_BYTES) return;
        since = 0;
        await new Promise((r) => setImmediate(r));
      },
    });
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    temp.done();
    throw err;
  }
  closeSync(fd);
  const name = `${role}-${hash.digest('hex')}.${ext}`;
  renameSync(tmp, join(dir, name));
  temp.done();
  return { name, bytes: size, crc32: crc };
}

/** Reads a file front to back into views; `done()` says whether it was consumed exactly. */
export interface FileReader {
  readonly size: number;
  into(view: ArrayBufferView): void;
  skip(bytes: number): void;
  remaining(): number;
  close(): void;
}

/** b.length bytes of the file at offset `at` into b. */
function readFully(fd: number, b: Uint8Array, at: number, path: string): void {
  for (let k = 0; k < b.length; ) {
    const n = readSync(fd, b, k, b.length - k, at + k);
    if (n === 0) throw new RangeError(`${path} ended early`);
    k += n;
  }
}

export function openReader(path: string): FileReader {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  let at = 0;
  return {
    size,
    into(view) {
      const b = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      if (at + b.length > size) throw new RangeError(`${path} is shorter than its index`);
      readFully(fd, b, at, path);
      at += b.length;
    },
    skip(bytes) {
      at += bytes;
    },
    remaining: () => size - at,
    close: () => closeSync(fd),
  };
}

/** Where a planned file's bytes go: `view` (on a SharedArrayBuffer) takes the bytes from offset `at`. */
interface Placement {
  view: Uint8Array;
  at: number;
}

/** A file whose bytes threads copy into its placements (bytes placed nowhere are only checked). */
export interface PlannedFile {
  path: string;
  size: number;
  places: Placement[];
}

/**
 * A FileReader that plans: a view on shared memory is recorded for the threads of readPlanned
 * to fill; any other view is read at once, here. Nothing read into a shared view may be looked
 * at before readPlanned resolves.
 */
export function planReader(path: string, size: number): FileReader & { plan: PlannedFile } {
  const plan: PlannedFile = { path, size, places: [] };
  let at = 0;
  let fd: number | null = null;
  return {
    plan,
    size,
    into(view) {
      const b = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      if (at + b.length > size) throw new RangeError(`${path} is shorter than its index`);
      if (b.buffer instanceof SharedArrayBuffer) plan.places.push({ view: b, at });
      else {
        fd ??= openSync(path, 'r');
        readFully(fd, b, at, path);
      }
      at += b.length;
    },
    skip(bytes) {
      at += bytes;
    },
    remaining: () => size - at,
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/** One thread's share: bytes [from, to) of a file, and the placements within it. */
interface Share {
  path: string;
  from: number;
  to: number;
  places: { buf: SharedArrayBuffer; offset: number; length: number; at: number }[];
}

const READ_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { crc32 } = require('node:zlib');
const STEP = 8 << 20;
const scratch = Buffer.allocUnsafe(1 << 20);
const crcs = [];
for (const s of workerData) {
  const fd = openSync(s.path, 'r');
  let crc = 0;
  let pos = s.from;
  const take = (u8) => {
    for (let k = 0; k < u8.length; ) {
      const n = readSync(fd, u8, k, u8.length - k, pos + k);
      if (n === 0) throw new Error(s.path + ' ended early');
      k += n;
    }
    crc = crc32(u8, crc);
    pos += u8.length;
  };
  const gap = (until) => {
    while (pos < until) take(scratch.subarray(0, Math.min(scratch.length, until - pos)));
  };
  for (const p of s.places) {
    gap(p.at);
    const view = new Uint8Array(p.buf, p.offset, p.length);
    for (let k = 0; k < p.length; k += STEP) take(view.subarray(k, Math.min(p.length, k + STEP)));
  }
  gap(s.to);
  closeSync(fd);
  crcs.push(crc);
}
parentPort.postMessage(crcs);
`;

/**
 * Fill every placement of `files` on `threads` threads (the files' bytes cut into equal shares)
 * and return each file's CRC-32 (zlib's), taken over all its bytes as they were read.
 */
export async function readPlanned(files: readonly PlannedFile[], threads: number): Promise<number[]> {
  const total = files.reduce((n, f) => n + f.size, 0);
  const per = Math.max(1, Math.ceil(total / Math.max(1, threads)));
  const shares: { file: number; share: Share }[][] = [];
  let thread: { file: number; share: Share }[] = [];
  let room = per;
  files.forEach((f, file) => {
    for (let from = 0; from < f.size; ) {
      const to = Math.min(f.size, from + room);
      const places = f.places
        .filter((p) => p.at < to && p.at + p.view.byteLength > from)
        .map((p) => {
          const a = Math.max(from, p.at);
          const z = Math.min(to, p.at + p.view.byteLength);
          return { buf: p.view.buffer as SharedArrayBuffer, offset: p.view.byteOffset + (a - p.at), length: z - a, at: a };
        });
      thread.push({ file, share: { path: f.path, from, to, places } });
      room -= to - from;
      from = to;
      if (room === 0) {
        shares.push(thread);
        thread = [];
        room = per;
      }
    }
  });
  if (thread.length > 0) shares.push(thread);
  const results = await Promise.all(shares.map((list) => runReader(list.map((x) => x.share))));
  const crcs = files.map(() => 0);
  shares.forEach((list, t) =>
    list.forEach(({ file, share }, k) => {
      crcs[file] = crc32Combine(crcs[file]!, results[t]![k]!, share.to - share.from);
    }),
  );
  return crcs;
}

function runReader(shares: Share[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(READ_WORKER, { eval: true, workerData: shares });
    w.once('message', (crcs: number[]) => resolve(crcs));
    w.once('error', reject);
    w.once('exit', (code) => {
      if (code !== 0) reject(new Error(`a reading thread exited with ${code}`));
    });
  });
}

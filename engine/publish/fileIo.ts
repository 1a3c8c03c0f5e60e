// Streamed, checksummed file I/O for the published snapshot's big files: a writer thread appends
// typed arrays to a temp file while hashing them (SHA-256 for the content address, CRC-32 for
// the reader's check; no whole-file buffer: the benchmark world's series are 1.6 GB), reading
// them where they are on shared memory, and the file is renamed to its content address. A
// reader first plans where every byte goes (the typed arrays that will hold them, on
// SharedArrayBuffers), then threads copy the files straight into them, each a share of the
// bytes, taking the CRC-32 of what they read as they go: a restart's read is bound by page
// faults on fresh memory, and those run on every core at once.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { crc32Combine } from '../../common/crc32.js';

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Where a part's bytes go. */
export interface ByteSink {
  bytes(view: ArrayBufferView): void;
  /** hands what was appended to the writing thread; waits while it is far behind (bounded memory), and lets the event loop run every few ms */
  breathe(): Promise<void>;
}

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
 * returns the name and size. The writing, SHA-256 and CRC-32 run on a thread of their own
 * (WRITE_WORKER): on this thread they blocked the event loop ~13 ms per 8 MB, and a publish
 * of the benchmark world writes 2 GB (serving positions at 5,000 req/s meanwhile: p99 826 ms,
 * 2,858 req/s). Views on shared memory go to the thread as they are; any other view is copied
 * (into shared memory) when it is appended. At most WRITE_AHEAD bytes wait for the thread.
 */
export async function writeStreamed(
  dir: string,
  role: string,
  ext: string,
  produce: (sink: ByteSink) => void | Promise<void>,
): Promise<{ name: string; bytes: number; crc32: number }> {
  const temp = tempFile(dir, role);
  const fd = openSync(temp.path, 'w');
  const writer = startWriter(fd);
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    await produce(writer.sink);
    const { sha256: hex, crc32, size } = await writer.end();
    close();
    const name = `${role}-${hex}.${ext}`;
    renameSync(temp.path, join(dir, name));
    return { name, bytes: size, crc32 };
  } catch (err) {
    // (a failed rename comes here with the file closed: closing it again would hide the error)
    await writer.abort();
    close();
    rmSync(temp.path, { force: true });
    throw err;
  } finally {
    temp.done();
  }
}

let writtenTotal = 0;
/** Bytes the writing threads of this process have written so far (a stop waits while it grows). */
export const bytesWritten = (): number => writtenTotal;

/** Bytes appended but not yet written by the thread, before `breathe` waits for it. */
const WRITE_AHEAD = 64 << 20;
/** `breathe` lets the event loop run when the producer has held it this long (ms). */
const YIELD_MS = 4;

/** A part of a file for the writing thread: bytes [offset, offset + length) of `buf`. */
interface WritePart {
  buf: SharedArrayBuffer;
  offset: number;
  length: number;
}

const WRITE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { createHash } = require('node:crypto');
const { crc32 } = require('node:zlib');
// the lowest priority: on Linux a thread's own (the serving thread keeps its core when both are busy)
try { require('node:os').setPriority(19); } catch {}
const fd = workerData.fd;
const hash = createHash('sha256');
let crc = 0;
let size = 0;
parentPort.on('message', (parts) => {
  if (parts === null) {
    parentPort.postMessage({ sha256: hash.digest('hex'), crc32: crc, size });
    return;
  }
  for (const p of parts) {
    const b = new Uint8Array(p.buf, p.offset, p.length);
    for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
    hash.update(b);
    crc = crc32(b, crc);
    size += b.length;
  }
  parentPort.postMessage({ written: size });
});
`;

/** The thread writing to `fd`, and the sink that feeds it. */
function startWriter(fd: number): { sink: ByteSink; end(): Promise<{ sha256: string; crc32: number; size: number }>; abort(): Promise<void> } {
  const worker = new Worker(WRITE_WORKER, { eval: true, workerData: { fd } });
  let batch: WritePart[] = [];
  let appended = 0;
  let written = 0;
  let failure: Error | null = null;
  let progress: (() => void) | null = null;
  let resumed = performance.now();
  let result: ((r: { sha256: string; crc32: number; size: number }) => void) | null = null;
  const finished = new Promise<{ sha256: string; crc32: number; size: number }>((resolve, reject) => {
    result = resolve;
    const fail = (err: Error) => {
      failure ??= err;
      progress?.();
      reject(failure);
    };
    worker.once('error', fail);
    worker.once('exit', (code) => fail(new Error(`the writing thread exited (${code}) before the file was complete`)));
  });
  finished.catch(() => undefined); // end() or abort() awaits it
  worker.on('message', (m: { written: number } | { sha256: string; crc32: number; size: number }) => {
    if ('written' in m) {
      writtenTotal += m.written - written;
      written = m.written;
      progress?.();
    } else {
      result!(m);
      void worker.terminate(); // after its answer: an exit before it is a failure
    }
  });
  const post = () => {
    if (batch.length === 0) return;
    worker.postMessage(batch);
    batch = [];
  };
  return {
    sink: {
      bytes(view) {
        if (view.byteLength === 0) return;
        if (view.buffer instanceof SharedArrayBuffer) batch.push({ buf: view.buffer, offset: view.byteOffset, length: view.byteLength });
        else {
          const copy = new Uint8Array(new SharedArrayBuffer(view.byteLength));
          copy.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
          batch.push({ buf: copy.buffer as SharedArrayBuffer, offset: 0, length: copy.length });
        }
        appended += view.byteLength;
      },
      async breathe() {
        post();
        while (failure === null && appended - written > WRITE_AHEAD) {
          await new Promise<void>((r) => (progress = r));
          resumed = performance.now();
        }
        progress = null;
        if (failure) throw failure;
        // the producer's own work (a few ms a call at most) never holds the event loop longer
        if (performance.now() - resumed >= YIELD_MS) {
          await new Promise((r) => setImmediate(r));
          resumed = performance.now();
        }
      },
    },
    async end() {
      post();
      worker.postMessage(null);
      return finished;
    },
    async abort() {
      await worker.terminate();
    },
  };
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

// Streamed, checksummed file I/O for the published snapshot's big files: a writer appends typed
// arrays to a temp file while hashing them (no whole-file buffer: the benchmark world's series
// are 1.6 GB) and renames it to its content address; a reader copies a file's bytes straight
// into the typed arrays that will hold them (SharedArrayBuffers, no intermediate copy) while a
// worker thread hashes the same file, so checking costs no time on the main thread.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Where a part's bytes go. */
export interface ByteSink {
  bytes(view: ArrayBufferView): void;
  /** lets the event loop run after every few MB written (a server keeps answering meanwhile) */
  breathe(): Promise<void>;
}

const BREATHE_BYTES = 8 << 20;

/**
 * Write what `produce` appends into DIR/<role>-<sha256>.<ext> (via a temp file and a rename);
 * returns the name and size.
 */
export async function writeStreamed(dir: string, role: string, ext: string, produce: (sink: ByteSink) => void | Promise<void>): Promise<{ name: string; bytes: number }> {
  const tmp = join(dir, `.${role}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = openSync(tmp, 'w');
  const hash = createHash('sha256');
  let size = 0;
  let since = 0;
  try {
    await produce({
      bytes(view) {
        const b = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
        for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
        hash.update(b);
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
    throw err;
  }
  closeSync(fd);
  const name = `${role}-${hash.digest('hex')}.${ext}`;
  renameSync(tmp, join(dir, name));
  return { name, bytes: size };
}

/** Reads a file front to back into views; `done()` says whether it was consumed exactly. */
export interface FileReader {
  readonly size: number;
  into(view: ArrayBufferView): void;
  skip(bytes: number): void;
  remaining(): number;
  close(): void;
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
      for (let k = 0; k < b.length; ) {
        const n = readSync(fd, b, k, b.length - k, at + k);
        if (n === 0) throw new RangeError(`${path} ended early`);
        k += n;
      }
      at += b.length;
    },
    skip(bytes) {
      at += bytes;
    },
    remaining: () => size - at,
    close: () => closeSync(fd),
  };
}

const HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { openSync, readSync, closeSync } = require('node:fs');
const buf = Buffer.allocUnsafe(8 << 20);
const out = [];
for (const path of workerData) {
  const fd = openSync(path, 'r');
  const h = createHash('sha256');
  for (let at = 0; ; ) {
    const n = readSync(fd, buf, 0, buf.length, at);
    if (n === 0) break;
    h.update(buf.subarray(0, n));
    at += n;
  }
  closeSync(fd);
  out.push(h.digest('hex'));
}
parentPort.postMessage(out);
`;

/** SHA-256 of each file (hex), computed on a worker thread. */
export function hashFilesOffThread(paths: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(HASH_WORKER, { eval: true, workerData: paths });
    w.once('message', (digests: string[]) => resolve(digests));
    w.once('error', reject);
    w.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the hashing thread exited with ${code}`));
    });
  });
}

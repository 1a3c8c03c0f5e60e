// The whole-file check of a published snapshot directory (`vaultd snapshot verify DIR`): every
// file the manifest names is read through once, its size, SHA-256 (its name) and, for the
// column files, CRC-32 (the manifest) compared — what a restart checks as it reads, without
// building the world. Streamed: memory stays a read buffer, whatever the snapshot's size.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from '../../common/crc32.js';
import { CorruptSnapshotError, MANIFEST, readManifest, type FileEntry } from './snapshotFiles.js';

export interface VerifiedSnapshot {
  generation: number;
  refreshed_at: string;
  files: number;
  bytes: number;
}

const NAMED_SHA = /-([0-9a-f]{64})\.[a-z]+$/;

/** Check every file of the snapshot in `dir`; throws CorruptSnapshotError naming the first bad file. */
export async function verifySnapshotDir(dir: string): Promise<VerifiedSnapshot> {
  const m = await readManifest(dir);
  if (!m) throw new CorruptSnapshotError(`${dir} has no ${MANIFEST}`);
  let bytes = 0;
  const entries = Object.entries(m.files) as [string, FileEntry][];
  for (const [role, entry] of entries) {
    await verifyFile(dir, role, entry);
    bytes += entry.bytes;
  }
  return { generation: m.generation, refreshed_at: m.refreshed_at, files: entries.length, bytes };
}

async function verifyFile(dir: string, role: string, entry: FileEntry): Promise<void> {
  const path = join(dir, entry.name);
  const want = NAMED_SHA.exec(entry.name)?.[1];
  if (!want) throw new CorruptSnapshotError(`${path} (${role}) has no checksum in its name`);
  const hash = createHash('sha256');
  let crc = 0;
  let size = 0;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      if (entry.crc32 !== undefined) crc = crc32(chunk, crc);
      size += chunk.length;
    }
  } catch (err) {
    throw new CorruptSnapshotError(`${path} (${role}) cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (size !== entry.bytes) throw new CorruptSnapshotError(`${path} (${role}) is ${size} bytes, the manifest says ${entry.bytes} (torn or altered)`);
  if (hash.digest('hex') !== want) throw new CorruptSnapshotError(`${path} (${role}) does not match its SHA-256 (altered)`);
  if (entry.crc32 !== undefined && crc >>> 0 !== entry.crc32 >>> 0) throw new CorruptSnapshotError(`${path} (${role}) does not match its CRC-32 (altered)`);
}

// The snapshot reader's planned, threaded read (engine/publish/fileIo.ts): whatever the files,
// the way their bytes are placed (shared views, views read at once, skipped bytes) and the number
// of threads, every shared view ends up holding its file's bytes, every other view too, and each
// file's CRC-32 is zlib's over all of its bytes. The writer's temp files do not outlive it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/common.js';
import { planReader, readPlanned, removeStaleTemps, writeStreamed, type PlannedFile } from './fileIo.js';

const dir = tempDir('vaultd-fileio-');

/** A file's bytes, and how they are consumed: [length, 'shared' | 'plain' | 'skip'] in order. */
const fileArb = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.constantFrom('shared', 'plain', 'skip')), { minLength: 0, maxLength: 12 })
  .chain((parts) => {
    const size = parts.reduce((n, [len]) => n + len, 0);
    return fc.tuple(fc.constant(parts), fc.uint8Array({ minLength: size, maxLength: size }));
  });

describe('readPlanned', () => {
  it('fills shared views with their bytes and gives each file zlib CRC-32, on 1–3 threads', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fileArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 3 }), async (files, threads) => {
        const plans: PlannedFile[] = [];
        const expected: { view: Uint8Array; bytes: Uint8Array }[] = [];
        for (const [parts, bytes] of files) {
          const path = join(dir, `f${n++}.bin`);
          writeFileSync(path, bytes);
          const r = planReader(path, bytes.length);
          let at = 0;
          for (const [len, how] of parts) {
            if (how === 'skip') r.skip(len);
            else {
              // a shared view sits inside a larger buffer, at an offset
              const view = how === 'shared' ? new Uint8Array(new SharedArrayBuffer(len + 16), 8, len) : new Uint8Array(len);
              r.into(view);
              expected.push({ view, bytes: bytes.subarray(at, at + len) });
            }
            at += len;
          }
          expect(r.remaining()).toBe(0);
          r.close();
          plans.push(r.plan);
        }
        const crcs = await readPlanned(plans, threads);
        expect(crcs).toEqual(files.map(([, bytes]) => crc32(bytes)));
        for (const { view, bytes } of expected) expect(Buffer.from(view).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('a view past the end of its file is refused when planned; a file shorter than planned fails the read', async () => {
    const path = join(dir, 'short.bin');
    writeFileSync(path, Buffer.from([1, 2, 3]));
    const r = planReader(path, 3);
    expect(() => r.into(new Uint8Array(new SharedArrayBuffer(4)))).toThrow(/shorter than its index/);
    // planned as 8 bytes (a stale size): the thread's read comes up short
    const p = planReader(path, 8);
    p.into(new Uint8Array(new SharedArrayBuffer(8)));
    await expect(readPlanned([p.plan], 1)).rejects.toThrow(/ended early/);
  });
});

describe('writeStreamed', () => {
  it('writes the appended views in order, on shared memory or not, named by their SHA-256 with zlib CRC-32', async () => {
    const out = join(dir, 'streamed');
    mkdirSync(out);
    // each part: its bytes, whether they sit on shared memory (at an offset), and a breathe after it
    const partArb = fc.tuple(fc.uint8Array({ minLength: 0, maxLength: 3000 }), fc.boolean(), fc.nat(16), fc.boolean());
    await fc.assert(
      fc.asyncProperty(fc.array(partArb, { maxLength: 10 }), async (parts) => {
        const written = await writeStreamed(out, 'part', 'bin', async (sink) => {
          for (const [bytes, shared, offset, breathe] of parts) {
            if (shared) {
              const view = new Uint8Array(new SharedArrayBuffer(offset + bytes.length + 3), offset, bytes.length);
              view.set(bytes);
              sink.bytes(view);
            } else sink.bytes(bytes);
            if (breathe) await sink.breathe();
          }
        });
        const expected = Buffer.concat(parts.map(([bytes]) => bytes));
        const sha = createHash('sha256').update(expected).digest('hex');
        expect(written).toEqual({ name: `part-${sha}.bin`, bytes: expected.length, crc32: crc32(expected) });
        expect(readFileSync(join(out, written.name)).equals(expected)).toBe(true);
      }),
      { numRuns: 40 },
    );
    expect(readdirSync(out).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a produce that throws leaves no file, nor does a temp file that cannot be made', async () => {
    const out = join(dir, 'failing');
    mkdirSync(out);
    await expect(
      writeStreamed(out, 'x', 'bin', async (sink) => {
        sink.bytes(new Uint8Array(10));
        await sink.breathe();
        throw new Error('produce failed');
      }),
    ).rejects.toThrow('produce failed');
    expect(readdirSync(out)).toEqual([]);
    // a directory that is not there: the temp file cannot be made
    await expect(writeStreamed(join(out, 'missing'), 'x', 'bin', (sink) => sink.bytes(new Uint8Array(1)))).rejects.toThrow(/ENOENT/);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('temp files of the writer', () => {
  it('a process that exits mid-write leaves no temp file behind', () => {
    const out = join(dir, 'exit-mid-write');
    mkdirSync(out);
    const fileIo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'engine', 'publish', 'fileIo.js');
    // as when a stop's grace runs out during a large write: process.exit with the file open
    const script = `
      import { readdirSync } from 'node:fs';
      import { writeStreamed } from ${JSON.stringify(fileIo)};
      await writeStreamed(${JSON.stringify(out)}, 'series', 'bin', (sink) => {
        sink.bytes(new Uint8Array(4096));
        process.stdout.write(JSON.stringify(readdirSync(${JSON.stringify(out)})));
        process.exit(0);
      });`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual([expect.stringMatching(new RegExp(`^\\.series\\.${child.pid}\\.[0-9a-z]+\\.tmp$`))]);
    expect(readdirSync(out)).toEqual([]);
  });

  it('removeStaleTemps removes the temp files of processes that are gone, and only those', () => {
    const out = join(dir, 'stale');
    mkdirSync(out);
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const names = {
      gone: `.series.${gone}.k3j2h1.tmp`,
      goneManifest: `.manifest.json.${gone}.a1.tmp`,
      mine: `.series.${process.pid}.x9.tmp`,
      parent: `.events.${process.ppid}.y8.tmp`,
      snapshot: 'series-00.bin',
      other: '.series.notapid.tmp',
    };
    for (const name of Object.values(names)) writeFileSync(join(out, name), 'x');
    expect(removeStaleTemps(out).sort()).toEqual([names.gone, names.goneManifest].sort());
    expect(readdirSync(out).sort()).toEqual([names.mine, names.parent, names.snapshot, names.other].sort());
    expect(existsSync(join(out, names.gone))).toBe(false);
    expect(removeStaleTemps(join(out, 'missing'))).toEqual([]);
  });
});

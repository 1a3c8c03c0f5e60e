// The compatibility step for uWebSockets.js (run by `npm ci`/`npm install` as `postinstall`).
//
// The uWS.js 20.57 addons (@btc-vision/uwebsockets.js, the only current build on the npm
// registry) are linked against glibc 2.38 for exactly three functions: `__isoc23_sscanf`,
// `__isoc23_strtol` and `__isoc23_strtoul`, which glibc 2.38 added as the C23 variants of the
// classic ones (they differ only in reading a `0b` binary prefix, which uWS never parses).
// Everything else they need is in glibc 2.36 (Debian 12). This step points those three
// dynamic-symbol references at the classic functions of the architecture's base glibc version:
// each symbol's name moves 9 bytes forward inside its own string ("__isoc23_strtol" → "strtol")
// and the one version requirement only they use (GLIBC_2.38) is renamed to the base version.
// Nothing else in the file changes: the patch is five 4-byte fields, undone exactly by
// `unpatchAddon` (test/uwsCompat.test.ts checks the result hashes back to the published file).
//
// Plain JavaScript: it runs before anything is compiled. Idempotent, and verified by hash: a
// file is patched only when it is the published one, and the result must be the reviewed one.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The three C23 functions and the classic ones they are pointed at. */
const C23_PREFIX = '__isoc23_';
const RETARGETED = new Set(['sscanf', 'strtol', 'strtoul']);
/** The version they need, and the base glibc version that has the classic functions, per ELF machine. */
const C23_VERSION = 'GLIBC_2.38';
const BASE_VERSION = { 62: 'GLIBC_2.2.5', 183: 'GLIBC_2.17' }; // EM_X86_64, EM_AARCH64

/**
 * The published addons (sha256) and the result of this step on each; a file that is neither is
 * refused, so a changed pin cannot be patched unreviewed (run with --print to see new hashes).
 */
export const REVIEWED = {
  'uws_linux_x64_115.node': {
    published: '5b126ee00bf754b02e97e4c27090365a8562c5820c93f93918ac2212d4503e91',
    patched: '0fdb9722352c4e0f519b42ad8b0c2bd4544b2c27484c1d49ddf143bfd1637cbb',
  },
  'uws_linux_x64_127.node': {
    published: '4b55b1f2cb7a7913febbb65a89496412b96af77e838552980092ba6b33723aac',
    patched: '4ea0943df7d3202b3ada5eb01c40c37c63bb192fd9c7b1abae5082c5cc1f2803',
  },
  'uws_linux_x64_137.node': {
    published: '98128405dba2fb608448e921a979530f70c946a2cc9889c15f2fa70c2d00ab05',
    patched: '8d5817f3a52803cb69a0e3d54f6487b533fda603aa63dab8ea09f9762d992e0b',
  },
  'uws_linux_x64_141.node': {
    published: '813d788b347c6fd76b779d8932311ec05a044e612b4b83af220f16e6ea789683',
    patched: '395fee5c7a644ad0964cc26651b5dd12833c147123c69dbe938fe17eb13a2760',
  },
  'uws_linux_arm64_115.node': {
    published: '6bdbc8ff976b4371af1906175e9025804bacc38a414969f4f02314e6b99f206c',
    patched: '68016401b908e59200b227ade8fe6b36bc9f8e30892e54cefd590a960612d7a6',
  },
  'uws_linux_arm64_127.node': {
    published: '82b79bd18d1e3563de336156005bd01b7f39fc387b65173d69a29da4ee79f895',
    patched: 'b28ee349e8a15aa5fd30988fc3935eb1b8898e44f27f2ae903ad9e959567c1e6',
  },
  'uws_linux_arm64_137.node': {
    published: '88618b30ddf6b2b62310db89f40a701616676352aac5e0f6184dd8ef876199ce',
    patched: '84c03ca18de632e52cce378f073f8b008c0817c957d2e475284ce08f75c88a77',
  },
  'uws_linux_arm64_141.node': {
    published: '81d0186dd1549ed6a7f47e68e323573fc27d69d2920527654ce2dd993af2b0ec',
    patched: 'de517c5f4cd31f4431fc07e2eb212924b0cd02e770679a36ed063b6b47c1c017',
  },
};

const SHT_DYNSYM = 11;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;

export const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

/** The parts of a 64-bit little-endian ELF file this step reads: dynamic symbols, their versions, the version requirements. */
function readElf(buf) {
  if (buf.readUInt32BE(0) !== 0x7f454c46 || buf[4] !== 2 || buf[5] !== 1) throw new Error('not a 64-bit little-endian ELF file');
  const machine = buf.readUInt16LE(0x12);
  const shoff = Number(buf.readBigUInt64LE(0x28));
  const shentsize = buf.readUInt16LE(0x3a);
  const shnum = buf.readUInt16LE(0x3c);
  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * shentsize;
    sections.push({
      type: buf.readUInt32LE(at + 4),
      offset: Number(buf.readBigUInt64LE(at + 0x18)),
      size: Number(buf.readBigUInt64LE(at + 0x20)),
      link: buf.readUInt32LE(at + 0x28),
      info: buf.readUInt32LE(at + 0x2c),
    });
  }
  const dynsym = sections.find((s) => s.type === SHT_DYNSYM);
  const versym = sections.find((s) => s.type === SHT_GNU_VERSYM);
  const verneed = sections.find((s) => s.type === SHT_GNU_VERNEED);
  if (!dynsym || !versym || !verneed) throw new Error('no dynamic symbol versions in this file');
  const dynstr = sections[dynsym.link];
  const str = (off) => {
    const from = dynstr.offset + off;
    return buf.toString('latin1', from, buf.indexOf(0, from));
  };
  const symbols = [];
  for (let i = 0; i < dynsym.size / 24; i++) {
    const at = dynsym.offset + i * 24;
    const name = buf.readUInt32LE(at);
    symbols.push({ at, name, text: str(name), version: buf.readUInt16LE(versym.offset + 2 * i) & 0x7fff, defined: buf.readUInt16LE(at + 6) !== 0 });
  }
  // version requirements: per needed file, its versions (vernaux entries)
  const needs = [];
  let vn = verneed.offset;
  for (let n = 0; n < verneed.info; n++) {
    const file = str(buf.readUInt32LE(vn + 4));
    let aux = vn + buf.readUInt32LE(vn + 8);
    for (let k = 0; k < buf.readUInt16LE(vn + 2); k++) {
      needs.push({
        at: aux,
        file,
        hash: buf.readUInt32LE(aux),
        name: buf.readUInt32LE(aux + 8),
        text: str(buf.readUInt32LE(aux + 8)),
        index: buf.readUInt16LE(aux + 6),
      });
      aux += buf.readUInt32LE(aux + 12);
    }
    const next = buf.readUInt32LE(vn + 12);
    if (next === 0) break;
    vn += next;
  }
  return { machine, symbols, needs, dynstr, str };
}

/** The SysV ELF hash of a version name (what vna_hash holds). */
function elfHash(name) {
  let h = 0;
  for (const c of Buffer.from(name, 'latin1')) {
    h = ((h << 4) + c) >>> 0;
    const g = h & 0xf0000000;
    if (g !== 0) h ^= g >>> 24;
    h &= ~g >>> 0;
  }
  return h >>> 0;
}

/** Versions of glibc (libc, libm, ld-linux, …) the file requires, highest last. */
export function requiredGlibc(buf) {
  const versions = [
    ...new Set(
      readElf(buf)
        .needs.filter((n) => n.text.startsWith('GLIBC_'))
        .map((n) => n.text),
    ),
  ];
  return versions.sort(compareGlibc);
}

export function compareGlibc(a, b) {
  const pa = a.slice(6).split('.').map(Number);
  const pb = b.slice(6).split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/**
 * The file with the C23 references pointed at the classic functions; the same file when it has
 * none. Throws when the GLIBC_2.38 requirement is used by anything but the three functions.
 */
export function patchAddon(input) {
  const buf = Buffer.from(input);
  const elf = readElf(buf);
  const c23 = elf.needs.find((n) => n.file === 'libc.so.6' && n.text === C23_VERSION);
  if (!c23) return buf;
  const baseName = BASE_VERSION[elf.machine];
  const base = elf.needs.find((n) => n.file === 'libc.so.6' && n.text === baseName);
  if (!base) throw new Error(`no libc.so.6 ${baseName ?? `base version for ELF machine ${elf.machine}`} requirement to point at`);
  const users = elf.symbols.filter((s) => s.version === c23.index);
  for (const s of users) {
    const classic = s.text.slice(C23_PREFIX.length);
    if (s.defined || !s.text.startsWith(C23_PREFIX) || !RETARGETED.has(classic)) {
      throw new Error(`${C23_VERSION} is needed by "${s.text}", which this step does not retarget`);
    }
    buf.writeUInt32LE(s.name + C23_PREFIX.length, s.at);
  }
  buf.writeUInt32LE(base.hash, c23.at);
  buf.writeUInt32LE(base.name, c23.at + 8);
  return buf;
}

/** Undoes `patchAddon` (for the test that the patch changed nothing else). */
export function unpatchAddon(input) {
  const buf = Buffer.from(input);
  const elf = readElf(buf);
  const baseName = BASE_VERSION[elf.machine];
  // the renamed requirement: a second libc base-version entry used only by retargeted symbols
  // (a classic `strtol` may share the string of `__isoc23_strtol` too: the linker merges
  // suffixes, so the name alone does not tell)
  const isRetargeted = (s) => !s.defined && RETARGETED.has(s.text) && elf.str(s.name - C23_PREFIX.length).startsWith(C23_PREFIX);
  const need = elf.needs.find((n) => {
    if (n.file !== 'libc.so.6' || n.text !== baseName) return false;
    const users = elf.symbols.filter((s) => s.version === n.index);
    return users.length > 0 && users.every(isRetargeted);
  });
  if (!need) return buf;
  const nameAt = buf.indexOf(Buffer.from(`\0${C23_VERSION}\0`, 'latin1'), elf.dynstr.offset) + 1 - elf.dynstr.offset;
  for (const s of elf.symbols) if (s.version === need.index) buf.writeUInt32LE(s.name - C23_PREFIX.length, s.at);
  buf.writeUInt32LE(elfHash(C23_VERSION), need.at);
  buf.writeUInt32LE(nameAt, need.at + 8);
  return buf;
}

/** Patch every Linux addon of the installed package in place; returns what was done per file. */
export function applyToPackage(dir, { print = false } = {}) {
  const done = [];
  for (const name of readdirSync(dir)
    .filter((f) => /^uws_linux_.*\.node$/.test(f))
    .sort()) {
    const path = join(dir, name);
    const before = readFileSync(path);
    const hash = sha256(before);
    const reviewed = REVIEWED[name];
    if (print) {
      const patched = sha256(patchAddon(before));
      done.push({ name, published: hash, patched });
      continue;
    }
    if (!reviewed)
      throw new Error(`${path}: an addon this step has not reviewed; update REVIEWED in scripts/uwsCompat.mjs (node scripts/uwsCompat.mjs --print)`);
    if (hash === reviewed.patched) {
      done.push({ name, state: 'already patched' });
      continue;
    }
    if (hash !== reviewed.published) throw new Error(`${path}: sha256 ${hash} is not the published build this step was reviewed for; reinstall with npm ci`);
    const after = patchAddon(before);
    if (sha256(after) !== reviewed.patched) throw new Error(`${path}: the patched file is not the reviewed one`);
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, after);
    renameSync(tmp, path);
    done.push({ name, state: 'patched' });
  }
  return done;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = new URL('../node_modules/uWebSockets.js/', import.meta.url).pathname;
  if (!existsSync(dir)) process.exit(0); // not installed (e.g. a client-only install)
  const print = process.argv.includes('--print');
  try {
    const done = applyToPackage(dir, { print });
    if (print) console.log(JSON.stringify(Object.fromEntries(done.map((d) => [d.name, { published: d.published, patched: d.patched }])), null, 2));
    else if (done.some((d) => d.state === 'patched'))
      console.log(`uwsCompat: uWebSockets.js addons retargeted to glibc ≤ 2.36 (${done.filter((d) => d.state === 'patched').length} files)`);
  } catch (e) {
    console.error(`uwsCompat: ${e.message}`);
    process.exit(1);
  }
}

// A dictionary finds and adds strings exactly as a Map of strings does (the oracle), whether
// they are addresses (indexed by their bytes), addresses in another case or any other string,
// across the byte index's growth and for a dictionary built from values at once (repeats too).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressWords, AddressIndex, NOT_AN_ADDRESS } from './addressIndex.js';
import { Dictionary, NONE } from './events.js';

const hex = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n });
/** addresses from a small pool (so repeats happen), their upper-case twins, near misses and other strings */
const keyArb = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map((i) => `0x${i.toString(16).padStart(40, '0')}`),
  hex(40).map((h) => `0x${h}`),
  hex(40).map((h) => `0x${h.toUpperCase()}`),
  hex(39).map((h) => `0x${h}`),
  hex(41).map((h) => `0x${h}`),
  hex(40).map((h) => `0X${h}`),
  hex(40).map((h) => `0x${h.slice(1)}g`),
  hex(64).map((h) => `0x${h}`),
  fc.string({ maxLength: 50 }),
);

describe('address index', () => {
  it('a dictionary adds and finds like a Map of strings (oracle), across growth', () => {
    fc.assert(
      // initial values may repeat (a Map built from them keeps each one's last index)
      fc.property(fc.array(keyArb, { maxLength: 200 }), fc.array(fc.tuple(fc.boolean(), keyArb), { maxLength: 600 }), (initial, ops) => {
        const values = [...initial];
        const dict = new Dictionary([...values]);
        const oracle = new Map(values.map((v, k) => [v, k]));
        for (const [add, key] of ops) {
          if (add) {
            if (!oracle.has(key)) {
              oracle.set(key, values.length);
              values.push(key);
            }
            expect(dict.id(key)).toBe(oracle.get(key));
          } else expect(dict.find(key)).toBe(oracle.get(key) ?? NONE);
        }
        expect(dict.values).toEqual(values);
        for (const [key, k] of oracle) expect(dict.find(key)).toBe(k);
      }),
      { numRuns: 300 },
    );
  });

  it('reads an address as its 20 bytes, and nothing else as an address', () => {
    const out = new Uint32Array(5);
    expect(addressWords('0x00000001ffffffff0123456789abcdef00000000', out, 0)).toBe(true);
    expect([...out]).toEqual([1, 0xffffffff, 0x01234567, 0x89abcdef, 0]);
    for (const s of [
      '0x00000001FFFFFFFF0123456789abcdef00000000',
      '0x00000001ffffffff0123456789abcdef0000000',
      '1x00000001ffffffff0123456789abcdef00000000',
      '0x00000001ffffffff0123456789abcdef0000000 ',
    ]) {
      expect(addressWords(s, out, 0)).toBe(false);
    }
    const index = new AddressIndex();
    expect(index.find('not an address')).toBe(NOT_AN_ADDRESS);
    expect(index.find(`0x${'ab'.repeat(20)}`)).toBe(NONE);
  });

  it('tells apart addresses that differ in one word only, whichever word it is', () => {
    for (let w = 0; w < 5; w++) {
      const index = new AddressIndex();
      const n = 5_000;
      // every address is the same but for word w (8 hex digits)
      const at = (k: number) => `0x${Array.from({ length: 5 }, (_, j) => (j === w ? k.toString(16).padStart(8, '0') : 'a5a5a5a5')).join('')}`;
      for (let k = 0; k < n; k++) index.add(at(k), k);
      let found = 0;
      for (let k = 0; k < n; k++) if (index.find(at(k)) === k) found++;
      expect(found).toBe(n);
      expect(index.find(at(n))).toBe(NONE);
    }
  });

  it('holds 100 k addresses after one reserve, each found at its id', () => {
    const n = 100_000;
    const index = new AddressIndex();
    const at = (k: number) => `0x${((k * 2654435761) >>> 0).toString(16).padStart(8, '0')}${k.toString(16).padStart(32, '0')}`;
    index.reserve(n, n - 1);
    let added = 0;
    for (let k = 0; k < n; k++) if (index.add(at(k), k)) added++;
    expect(added).toBe(n);
    let found = 0;
    for (let k = 0; k < n; k++) if (index.find(at(k)) === k) found++;
    expect(found).toBe(n);
    expect(index.find(at(n))).toBe(NONE);
  });
});

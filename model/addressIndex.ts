// The index of a dictionary's address strings (`0x` and 40 lowercase hex digits) by their 20
// bytes: five 32-bit words per address in one typed array and an open-addressed table of
// indexes. A wallet page looks its wallet up once per request, among 100 k (benchmark world) to
// 400 k wallets; in a Map of strings that lookup was ~10 % of the serving thread's time at a
// fixed 5,000 req/s (perf, `Builtins_FindOrderedHashMapEntry`): a fresh 42-character key is
// hashed, and the stored keys (slices of the snapshot file's text after a restart) are
// compared through the runtime. Here a key is parsed once and compared as five numbers.

/** Returned by `find` for a string that is not address-shaped (the caller asks its Map). */
export const NOT_AN_ADDRESS = -2;

const WORDS = 5;
const EMPTY = -1;
/** `0x` and 40 hex digits */
export const ADDRESS_LENGTH = 42;

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;

/**
 * The 20 bytes of `s` as five big-endian words into `out` at `at`, when `s` is `0x` and 40
 * lowercase hex digits; false otherwise (upper case included: the index is exact, as a Map's
 * string keys are).
 */
export function addressWords(s: string, out: Uint32Array, at: number): boolean {
  if (s.length !== ADDRESS_LENGTH || s.charCodeAt(0) !== 48 || s.charCodeAt(1) !== 120) return false;
  for (let w = 0; w < WORDS; w++) {
    let v = 0;
    for (let j = 2 + 8 * w, end = j + 8; j < end; j++) {
      const c = s.charCodeAt(j);
      const d = c < 128 ? HEX[c]! : -1;
      if (d < 0) return false;
      v = (v << 4) | d;
    }
    out[at + w] = v;
  }
  return true;
}

export class AddressIndex {
  /** the words of value `id` at [WORDS * id, WORDS * id + WORDS) (ids without an address leave a hole) */
  private words = new Uint32Array(WORDS * 64);
  /** open addressing, linear probing: the id of each slot's address, or EMPTY */
  private slots = new Int32Array(128).fill(EMPTY);
  private count = 0;
  private readonly key = new Uint32Array(WORDS);
  /** per index, so the slots of on-chain addresses (which anyone can grind) cannot be aimed at */
  private readonly seed = (Math.random() * 0x1_0000_0000) >>> 0;

  /** The id of address `s`, EMPTY (−1) when absent, NOT_AN_ADDRESS when `s` is not address-shaped. */
  find(s: string): number {
    const key = this.key;
    if (!addressWords(s, key, 0)) return NOT_AN_ADDRESS;
    const mask = this.slots.length - 1;
    const words = this.words;
    for (let i = this.slot(key, 0); ; i = (i + 1) & mask) {
      const id = this.slots[i]!;
      if (id === EMPTY) return EMPTY;
      if (sameWords(words, WORDS * id, key, 0)) return id;
    }
  }

  /** Index address `s` as `id` (an address indexed before now names `id`, as a Map's set would); false, and nothing done, when `s` is not address-shaped. */
  add(s: string, id: number): boolean {
    this.roomFor(id);
    if (!addressWords(s, this.words, WORDS * id)) return false;
    if (2 * (this.count + 1) > this.slots.length) this.rehash(2 * this.slots.length);
    if (this.place(id)) this.count++;
    return true;
  }

  /** Room for `n` addresses without growing (a dictionary's values indexed at once). */
  reserve(n: number, maxId: number): void {
    this.roomFor(maxId);
    let size = this.slots.length;
    while (size < 2 * n) size *= 2;
    if (size > this.slots.length) this.rehash(size);
  }

  /** Words for ids up to `id` (at least doubled when grown). */
  private roomFor(id: number): void {
    if (WORDS * (id + 1) <= this.words.length) return;
    const grown = new Uint32Array(Math.max(WORDS * (id + 1), 2 * this.words.length));
    grown.set(this.words);
    this.words = grown;
  }

  private slot(words: Uint32Array, o: number): number {
    // murmur3's finalizer over the words mixed with the seed
    let h = this.seed;
    for (let w = 0; w < WORDS; w++) h = Math.imul(h ^ words[o + w]!, 0x9e3779b1) ^ (h >>> 15);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h & (this.slots.length - 1);
  }

  /** Put `id` in its slot; false when its address was already there (that slot now names `id`). */
  private place(id: number): boolean {
    const mask = this.slots.length - 1;
    const words = this.words;
    const o = WORDS * id;
    let i = this.slot(words, o);
    for (let other = this.slots[i]!; other !== EMPTY; i = (i + 1) & mask, other = this.slots[i]!) {
      if (sameWords(words, WORDS * other, words, o)) {
        this.slots[i] = id;
        return false;
      }
    }
    this.slots[i] = id;
    return true;
  }

  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new Int32Array(size).fill(EMPTY);
    for (const id of old) if (id !== EMPTY) this.place(id);
  }
}

/** Whether the five words of `a` at `ao` equal those of `b` at `bo`. */
function sameWords(a: Uint32Array, ao: number, b: Uint32Array, bo: number): boolean {
  return a[ao] === b[bo] && a[ao + 1] === b[bo + 1] && a[ao + 2] === b[bo + 2] && a[ao + 3] === b[bo + 3] && a[ao + 4] === b[bo + 4];
}

import { describe, expect, it } from 'vitest';
import { VaultdError } from '../../common/errors.js';
import { parseShard, shardOf } from './shardOf.js';

describe('shardOf', () => {
  it('is FNV-1a 32 of the lower-cased key, mod n (stable across machines and releases)', () => {
    // the published FNV-1a 32 test vectors: "" → 0x811c9dc5, "a" → 0xe40c292c, "foobar" → 0xbf9cf968
    expect(shardOf('', 0x100000000)).toBe(0x811c9dc5);
    expect(shardOf('a', 0x100000000)).toBe(0xe40c292c);
    expect(shardOf('foobar', 0x100000000)).toBe(0xbf9cf968);
    expect(shardOf('0xAbC0000000000000000000000000000000000001', 7)).toBe(shardOf('0xabc0000000000000000000000000000000000001', 7));
  });

  it('spreads addresses over every shard', () => {
    const counts = new Array<number>(7).fill(0);
    for (let k = 0; k < 7000; k++) counts[shardOf(`0x${k.toString(16).padStart(40, '0')}`, 7)]! += 1;
    for (const c of counts) expect(c).toBeGreaterThan(700);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(7000);
  });
});

describe('parseShard', () => {
  it('reads i/n', () => {
    expect(parseShard('0/1')).toEqual({ index: 0, count: 1 });
    expect(parseShard('6/7')).toEqual({ index: 6, count: 7 });
  });

  it.each(['7/7', '0/0', '-1/2', '1', 'a/b', '1/10000', ' 1/2'])('error: "%s" is refused with the form expected', (raw) => {
    let err: unknown;
    try {
      parseShard(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(VaultdError);
    expect((err as VaultdError).exitCode).toBe(2);
    expect((err as VaultdError).message).toBe(
      `--shard "${raw}": expected i/n with 1 ≤ n ≤ 9999 and 0 ≤ i < n (shard i of n, counted from 0), e.g. --shard 0/4`,
    );
  });
});

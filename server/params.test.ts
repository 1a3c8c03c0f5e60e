import { describe, expect, it } from 'vitest';
import { VaultdError } from '../common/errors.js';
import { parseQuery } from './params.js';

describe('parseQuery', () => {
  it('gives defaults and values, the same frozen answer for the same query, per route', () => {
    const a = parseQuery('vaults.timeseries', 'granularity=hour&limit=50&start=2026-03-01T00:00:00Z');
    expect(a).toEqual({ granularity: 'hour', limit: 50, order: 'asc', start: Date.parse('2026-03-01T00:00:00Z') / 1000 });
    expect(parseQuery('vaults.timeseries', 'granularity=hour&limit=50&start=2026-03-01T00:00:00Z')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    // the same raw query on another route is that route's own parse
    expect(parseQuery('users.activity', 'limit=50')).toEqual({ limit: 50, order: 'desc', include_hidden: false });
    expect(parseQuery('vaults.list', 'limit=50')).toEqual({ limit: 50, include_hidden: false });
  });

  it('refuses a bad query every time it comes (errors are not remembered)', () => {
    for (let i = 0; i < 3; i++) {
      let err: unknown;
      try {
        parseQuery('vaults.list', 'limit=0');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(VaultdError);
      expect((err as VaultdError).details).toEqual({ parameter: 'limit' });
    }
    expect(() => parseQuery('vaults.list', 'limit=1&limit=2')).toThrow(/at most once/);
    expect(() => parseQuery('vaults.list', 'limit=1&limit=2')).toThrow(/at most once/);
  });

  it('remembers a repeated query, never one over 1 KB (junk buys no memory), and answers either way', () => {
    const first = parseQuery('vaults.list', 'limit=7');
    expect(parseQuery('vaults.list', 'limit=7')).toBe(first);
    const long = `limit=7&junk=${'x'.repeat(2000)}`;
    const a = parseQuery('vaults.list', long);
    const b = parseQuery('vaults.list', long);
    expect(b).toEqual(first);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
  });
});

import { describe, expect, it } from 'vitest';
import { VaultdError } from '../../common/errors.js';
import { assertDemoParams, DEMO_DEFAULTS, demoStart, lastFullHour, type DemoParams } from './params.js';

const NOW = Date.UTC(2026, 0, 15, 10) / 1000;
const params = (over: Partial<DemoParams> = {}): DemoParams => ({ ...DEMO_DEFAULTS, now: NOW, ...over });

describe('lastFullHour', () => {
  it('floors to the hour, in seconds', () => {
    expect(lastFullHour(Date.UTC(2026, 0, 15, 10, 59, 59, 999))).toBe(NOW);
    expect(lastFullHour(Date.UTC(2026, 0, 15, 10))).toBe(NOW);
    expect(lastFullHour(Date.UTC(2026, 0, 15, 9, 59, 59))).toBe(NOW - 3600);
  });
});

describe('demoStart', () => {
  it('is now minus the history, on the hour', () => {
    expect(demoStart(params())).toBe(NOW - 420 * 86_400);
    expect(demoStart(params()) % 3600).toBe(0);
  });
});

describe('assertDemoParams', () => {
  it('accepts the defaults', () => {
    expect(() => assertDemoParams(params())).not.toThrow();
    expect(() => assertDemoParams(params({ vaults: 1000, wallets: 100_000, days: 730 }))).not.toThrow();
  });

  it('now may fall inside an hour; error: a start off the hour, or after now', () => {
    expect(() => assertDemoParams(params({ now: NOW + 1 }))).not.toThrow();
    const e = catchError(() => assertDemoParams(params({ start: NOW - 3600 + 1 })));
    expect(e).toBeInstanceOf(VaultdError);
    expect(e.code).toBe('USAGE');
    expect(e.message).toBe(`demo: "start" must be Unix seconds on the hour, got ${NOW - 3600 + 1}`);
    expect(catchError(() => assertDemoParams(params({ start: NOW + 3600 }))).message).toBe(
      `demo: "start" must be at or before now (${NOW}), got ${NOW + 3600}`,
    );
  });

  it('error: bad days, wallets, vaults, seed', () => {
    expect(catchError(() => assertDemoParams(params({ days: 0 }))).message).toBe('demo: "days" must be an integer from 1 to 3650, got 0');
    expect(catchError(() => assertDemoParams(params({ wallets: 1.5 }))).message).toBe('demo: "wallets" must be an integer from 1 to 10000000, got 1.5');
    expect(catchError(() => assertDemoParams(params({ vaults: 0 }))).message).toBe('demo: "vaults" must be null or an integer from 1 to 100000, got 0');
    expect(catchError(() => assertDemoParams(params({ seed: Number.NaN }))).message).toBe('demo: "seed" must be a safe integer, got null');
  });
});

function catchError(f: () => void): VaultdError {
  try {
    f();
  } catch (e) {
    return e as VaultdError;
  }
  throw new Error('expected an error');
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  age,
  impliedPrice,
  bpsPercent,
  duration,
  percent,
  percentOf,
  roundDecimal,
  shortAddress,
  timestamp,
  token,
  tokenDigits,
  tokenExact,
  usd,
  usdCompact,
  usdCompactNumber,
  usdExact,
  wadPercent,
} from './format.js';

describe('roundDecimal', () => {
  it('rounds half away from zero on the string, to exactly n decimals', () => {
    expect(roundDecimal('2.345', 2)).toBe('2.35');
    expect(roundDecimal('2.344999', 2)).toBe('2.34');
    expect(roundDecimal('-2.345', 2)).toBe('-2.35');
    expect(roundDecimal('9.995', 2)).toBe('10.00');
    expect(roundDecimal('7', 2)).toBe('7.00');
    expect(roundDecimal('0.5', 0)).toBe('1');
    expect(roundDecimal('-0.004', 2)).toBe('0.00');
    expect(roundDecimal('007.1', 1)).toBe('7.1');
  });

  it('agrees with BigInt arithmetic on random decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), fc.integer({ min: 0, max: 6 }), (n, scale, digits) => {
        const abs = (n < 0n ? -n : n).toString().padStart(scale + 1, '0');
        const s = `${n < 0n ? '-' : ''}${scale ? `${abs.slice(0, -scale)}.${abs.slice(-scale)}` : abs}`;
        const got = roundDecimal(s, digits);
        // reference: scale to `digits`, round half away from zero
        const a = n < 0n ? -n : n;
        const shift = scale - digits;
        const q = shift <= 0 ? a * 10n ** BigInt(-shift) : (a + 5n * 10n ** BigInt(shift - 1)) / 10n ** BigInt(shift);
        const qs = q.toString().padStart(digits + 1, '0');
        const ref = `${n < 0n && q !== 0n ? '-' : ''}${digits ? `${qs.slice(0, -digits)}.${qs.slice(-digits)}` : qs}`;
        expect(got).toBe(ref);
      }),
    );
  });

  it('rejects what is not a decimal string', () => {
    expect(() => roundDecimal('1e5', 2)).toThrow('not a decimal string: "1e5"');
  });
});

describe('usd', () => {
  it('detail views: two decimals always, grouped, rounded', () => {
    expect(usd('8049560.24')).toBe('$8,049,560.24');
    expect(usd('6476713')).toBe('$6,476,713.00');
    expect(usd('5423253.3')).toBe('$5,423,253.30');
    expect(usd('2970577.805')).toBe('$2,970,577.81');
    expect(usd('-1234.5')).toBe('-$1,234.50');
    expect(usd('0')).toBe('$0.00');
    expect(usd(null)).toBe('—');
  });

  it('tables: compact with two decimals of the unit', () => {
    expect(usdCompact('8049560.24')).toBe('$8.05M');
    expect(usdCompact('523450')).toBe('$523.45K');
    expect(usdCompact('12.3')).toBe('$12.30');
    expect(usdCompact('999.994')).toBe('$999.99');
    expect(usdCompact('999.995')).toBe('$1.00K');
    expect(usdCompact('999995')).toBe('$1.00M');
    expect(usdCompact('339948195.747497')).toBe('$339.95M');
    expect(usdCompact('1234567890123')).toBe('$1.23T');
    expect(usdCompact('-3146.369322')).toBe('-$3.15K');
    expect(usdCompact('-0.001')).toBe('$0.00');
    expect(usdCompact(null)).toBe('—');
    expect(usdCompactNumber(2_970_577.8)).toBe('$2.97M');
    expect(usdCompactNumber(null)).toBe('—');
  });

  it('the exact value keeps every digit the API gave', () => {
    expect(usdExact('8049560.240001')).toBe('$8,049,560.240001');
    expect(usdExact('-5')).toBe('-$5');
    expect(usdExact(null)).toBe('no USD price');
  });
});

describe('token amounts', () => {
  it('six significant digits, at least two decimals, at most the token decimals', () => {
    expect(token('2972203.600797', 'USDC', 6)).toBe('2,972,203.60 USDC');
    expect(token('1115.804895360371354747', 'WETH', 18)).toBe('1,115.80 WETH');
    expect(token('16.16377936', 'cbBTC', 8)).toBe('16.1638 cbBTC');
    expect(token('0.00219369', 'cbBTC', 8)).toBe('0.002194 cbBTC');
    expect(token('0', 'USDC', 6)).toBe('0.00 USDC');
    expect(token('-12419.81458', 'USDC', 6)).toBe('-12,419.81 USDC');
    expect(token('5', 'X', 0)).toBe('5 X');
    expect(token(null, 'USDC')).toBe('—');
    expect(tokenDigits('1.5', 6)).toBe(5);
    // with a USD price: the last digit is worth about a dollar at most
    expect(token('12.5', 'USDC', 6, 1.0001)).toBe('12.50 USDC');
    expect(token('1115.804895360371354747', 'WETH', 18, 4493.2)).toBe('1,115.8049 WETH');
    expect(token('16.16377936', 'cbBTC', 8, 78_100)).toBe('16.16378 cbBTC');
    expect(impliedPrice({ native: '2', usd: '9000' })).toBe(4500);
    expect(impliedPrice({ native: '0', usd: '0' })).toBeNull();
    expect(impliedPrice({ native: '2', usd: null })).toBeNull();
    expect(tokenExact('2972203.600797', 'USDC')).toBe('2,972,203.600797 USDC');
  });
});

describe('percents and fees', () => {
  it('APY fractions and ROI percents with two decimals', () => {
    expect(percent(0.0512)).toBe('5.12 %');
    expect(percent(-0.16443849051133433)).toBe('-16.44 %');
    expect(percent(-0.00001)).toBe('0.00 %');
    expect(percent(null)).toBe('—');
    expect(percentOf(5.2793566861126795)).toBe('5.28 %');
    expect(percentOf(undefined)).toBe('—');
  });

  it('fees exactly, trailing zeros dropped', () => {
    expect(wadPercent('100000000000000000')).toBe('10 %');
    expect(wadPercent('150000000000000000')).toBe('15 %');
    expect(wadPercent('5000000000000000')).toBe('0.5 %');
    expect(wadPercent('0')).toBe('0 %');
    expect(wadPercent(null)).toBe('—');
    expect(bpsPercent(50)).toBe('0.5 %');
    expect(bpsPercent(1000)).toBe('10 %');
    expect(bpsPercent(null)).toBe('—');
  });
});

describe('time', () => {
  it('durations in days, hours or minutes', () => {
    expect(duration(604_800)).toBe('7 days');
    expect(duration(259_200)).toBe('3 days');
    expect(duration(86_400)).toBe('1 day');
    expect(duration(129_600)).toBe('1.5 days');
    expect(duration(5400)).toBe('1.5 hours');
    expect(duration(120)).toBe('2 minutes');
    expect(duration(0)).toBe('none');
    expect(duration(null)).toBe('—');
  });

  it('timestamps in UTC and ages from a given now', () => {
    const now = Date.parse('2026-06-01T12:00:00Z');
    expect(timestamp(1780272000)).toBe('2026-06-01 00:00 UTC');
    expect(timestamp('2026-05-21T00:00:00Z')).toBe('2026-05-21 00:00 UTC');
    expect(age('2026-06-01T11:59:30Z', now)).toBe('just now');
    expect(age('2026-06-01T11:55:00Z', now)).toBe('5 min ago');
    expect(age('2026-06-01T10:00:00Z', now)).toBe('2 h ago');
    expect(age('2026-05-31T00:00:00Z', now)).toBe('36 h ago');
    expect(age('2026-05-21T00:00:00Z', now)).toBe('11 d ago');
    expect(age('2026-06-01T14:00:00Z', now)).toBe('in 2 h');
    expect(age(null, now)).toBe('—');
  });

  it('short addresses', () => {
    expect(shortAddress('0x6e4713b21e2879642a83d1c4dc0dacaa7ec6db63')).toBe('0x6e47…db63');
  });
});

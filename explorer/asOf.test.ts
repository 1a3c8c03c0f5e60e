import { describe, expect, it } from 'vitest';
import { apiInstant, asOfFromUrl, urlWithAsOf } from './asOf.js';

describe('as_of in the URL', () => {
  it("the picker's value and the URL's become the API's instant, read as UTC", () => {
    expect(apiInstant('2026-04-10T12:30')).toBe('2026-04-10T12:30:00Z');
    expect(apiInstant('2026-04-10T12:30:15')).toBe('2026-04-10T12:30:15Z');
    expect(apiInstant('2026-04-10')).toBe('2026-04-10T00:00:00Z');
    expect(asOfFromUrl('?as_of=2026-04-10T12%3A30%3A00Z&granularity=week')).toBe('2026-04-10T12:30:00Z');
    expect(asOfFromUrl('?as_of=2026-04-10')).toBe('2026-04-10T00:00:00Z');
  });

  it('no instant, or one that is not one, is the live page', () => {
    expect(asOfFromUrl('')).toBeUndefined();
    expect(asOfFromUrl('?as_of=')).toBeUndefined();
    expect(asOfFromUrl('?as_of=yesterday')).toBeUndefined();
    expect(asOfFromUrl('?as_of=2026-04-10T12:30:00%2B02:00')).toBeUndefined();
  });

  it("setting and clearing keeps the page's other parameters", () => {
    const href = 'http://x/vaults/1%3A0xab?granularity=week&start=2026-01-01#charts';
    expect(urlWithAsOf('2026-04-10T12:30:00Z', href)).toBe('/vaults/1%3A0xab?granularity=week&start=2026-01-01&as_of=2026-04-10T12%3A30%3A00Z#charts');
    expect(urlWithAsOf(undefined, `${href.replace('#charts', '')}&as_of=2026-04-10T12%3A30%3A00Z`)).toBe('/vaults/1%3A0xab?granularity=week&start=2026-01-01');
  });
});

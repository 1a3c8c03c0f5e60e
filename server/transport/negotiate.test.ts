import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseEncoding, createEncodingChooser, type Encoding } from './negotiate.js';

const cases: [string | undefined, Encoding, string][] = [
  [undefined, 'identity', 'no header'],
  ['', 'identity', 'empty header: identity only'],
  ['gzip', 'gzip', 'gzip only'],
  ['br', 'br', 'br only'],
  ['gzip, br', 'br', 'br preferred at equal q, whatever the order'],
  ['br, gzip', 'br', 'br preferred at equal q'],
  ['gzip, deflate, br, zstd', 'br', 'a browser'],
  ['gzip, deflate', 'gzip', 'curl --compressed without brotli'],
  ['br;q=0.5, gzip', 'gzip', 'higher q wins over the preference'],
  ['br;q=0.8, gzip;q=0.8', 'br', 'tie at q<1 goes to br'],
  ['br;q=0, gzip', 'gzip', 'q=0 refuses br'],
  ['br;q=0.000, gzip;q=0.0', 'identity', 'q=0 with decimals refuses both'],
  ['br; q=0 , gzip ; q = 0.3', 'gzip', 'whitespace around ; and ='],
  ['  GZIP  ,  BR;Q=0.9 ', 'gzip', 'case-insensitive codings and q name'],
  ['Br', 'br', 'case-insensitive br'],
  ['x-gzip', 'gzip', 'x-gzip is gzip'],
  ['*', 'br', 'star accepts everything; br preferred'],
  ['*;q=0.5, gzip', 'gzip', 'explicit gzip beats star'],
  ['*, br;q=0', 'gzip', 'star minus refused br'],
  ['*;q=0', 'identity', 'everything refused: identity anyway'],
  ['*;q=0, identity', 'identity', 'only identity'],
  ['identity', 'identity', 'identity listed alone'],
  ['identity;q=0, gzip', 'gzip', 'identity refused'],
  ['gzip;q=0.5, identity', 'identity', 'explicit identity at q=1 beats gzip at 0.5'],
  ['gzip;q=0.001', 'gzip', 'any positive q beats implicit identity'],
  ['deflate, compress', 'identity', 'only codings we do not have'],
  ['gzip;q=1.0, br;q=1.000', 'br', 'q=1.0 forms'],
  ['br;q=abc, gzip', 'gzip', 'malformed q: entry ignored'],
  ['br;q=1.5, gzip', 'gzip', 'q above 1: entry ignored'],
  ['br;q=-1, gzip', 'gzip', 'negative q: entry ignored'],
  ['br;level=5;q=0.1, gzip;q=0.2', 'gzip', 'other parameters before q'],
  ['br;foo, gzip;q=0.1', 'br', 'a parameter without value does not disturb q'],
  ['gzip, gzip;q=0', 'identity', 'a coding listed twice keeps its lowest q'],
  [',,, ,br,,', 'br', 'empty list elements'],
  [';q=1', 'identity', 'a parameter without coding'],
];

describe('chooseEncoding', () => {
  for (const [header, want, why] of cases) {
    it(`${why}: ${JSON.stringify(header)} → ${want}`, () => {
      expect(chooseEncoding(header)).toBe(want);
    });
  }

  it('never throws and always answers one of the three', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (header) => {
        expect(['br', 'gzip', 'identity']).toContain(chooseEncoding(header));
      }),
    );
  });

  it('without a brotli variant: the best of gzip and identity', () => {
    const table: [string, Encoding][] = [
      ['gzip, deflate, br, zstd', 'gzip'],
      ['br', 'identity'],
      ['br, gzip;q=0.1', 'gzip'],
      ['*', 'gzip'],
      ['*, gzip;q=0', 'identity'],
      ['br;q=1, identity;q=0.5, gzip;q=0.4', 'identity'],
      ['', 'identity'],
    ];
    for (const [header, want] of table) expect(chooseEncoding(header, false), header).toBe(want);
  });

  it('the remembering chooser answers as chooseEncoding, with and without brotli, past its capacity', () => {
    const choose = createEncodingChooser();
    fc.assert(
      fc.property(fc.constantFrom(...cases.map((c) => c[0] ?? ''), 'gzip, deflate, br'), fc.boolean(), (header, br) => {
        expect(choose(header, br)).toBe(chooseEncoding(header, br));
      }),
    );
    for (let i = 0; i < 2000; i++) expect(choose(`gzip;q=0.${i % 10}, br;q=${i}`, true)).toBe(chooseEncoding(`gzip;q=0.${i % 10}, br;q=${i}`, true));
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerLines, replyHeaders, type Reply } from '../reply.js';
import { createHeadWriter, statusLine } from './headWriter.js';

const replyArb = fc.record({
  status: fc.constantFrom(200, 204, 304, 401, 404, 414, 422, 429, 500, 503, 418),
  requestId: fc.stringMatching(/^[A-Za-z0-9._-]{1,128}$/),
  rateLimit: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2 ** 40 })),
  rateRemaining: fc.nat({ max: 2 ** 40 }),
  rateReset: fc.nat({ max: 100_000 }),
  retryAfter: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3600 })),
  cacheControl: fc.option(
    fc.constantFrom('public, max-age=60', 'private, max-age=0', 'no-store').map((v) => headerLines([['Cache-Control', v]])),
    { nil: null },
  ),
  fixed: fc
    .array(
      fc.tuple(
        fc.constantFrom('ETag', 'Vary', 'Content-Type', 'X-Long'),
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 3000 }),
      ),
    )
    .map(headerLines),
});

describe('head writer', () => {
  it('writes the status line and exactly the headers replyHeaders lists, in order (reused buffer or not)', () => {
    const write = createHeadWriter();
    fc.assert(
      fc.property(replyArb, fc.option(fc.nat(), { nil: null }), (fields, contentLength) => {
        const reply: Reply = { ...fields, template: null, parts: [], length: 0 };
        const text = Buffer.from(write(reply, contentLength)).toString('latin1');
        const [status, ...lines] = text.split('\r\n');
        expect(status).toBe(statusLine(reply.status));
        const expected = replyHeaders(reply).map(([k, v]) => `${k}: ${v}`);
        if (contentLength !== null) expected.push(`Content-Length: ${contentLength}`);
        expect(lines).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

// Issue #11: a timeseries window's gzip answer, written straight from its pieces' offsets
// (server/transport/splice.ts gzipItemsTemplate over engine/publish/seriesBuffers.ts pieces),
// is the identity answer compressed, for any window a client can ask for: any vault,
// granularity, start, end, limit, order and cursor page (fast-check, through the handler). The
// body the uWS transport sends (`fill`, a shared buffer) and the node transport's (`parts`) are
// the same bytes, of the length the reply states.
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../model/format/numbers.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import type { DemoParams } from '../jobs/demo/index.js';
import { createAuthTable } from '../server/auth.js';
import { createCursorCodec } from '../server/cursor.js';
import { createHandler } from '../server/handle.js';
import { replyHeaders, replyParts, type Reply } from '../server/reply.js';
import { createCommon } from '../common/common.js';
import { loadConfig } from '../common/config.js';
import { VAULT_TYPES } from '../families/index.js';
import { createLogger } from '../common/logger.js';
import { tempDir } from './helpers/common.js';
import { publishedDemo, servedOf } from './helpers/publishedDemo.js';
import { UNLIMITED } from './api/server.js';

const params: DemoParams = { seed: 5, now: Date.parse('2026-03-01T00:00:00Z') / 1000, vaults: null, wallets: 20, days: 60 };
let snapshot: Snapshot;
let handle: ReturnType<typeof createHandler>;

beforeAll(async () => {
  snapshot = await publishedDemo(join(tempDir('vaultd-window-gzip-'), 'w.duckdb'), params);
  const served = servedOf(snapshot);
  // hundreds of anonymous requests in a moment: limits out of the way
  const config = join(tempDir('vaultd-window-gzip-config-'), 'vaultd.json');
  writeFileSync(config, JSON.stringify(UNLIMITED));
  handle = createHandler({
    common: createCommon(loadConfig(VAULT_TYPES, { config }, {}), { logger: createLogger('silent') }),
    current: () => served,
    jobs: false,
    auth: () => createAuthTable([]),
    cursors: createCursorCodec(Buffer.alloc(32, 5)),
    secondsToNextPublish: () => null,
    started: 0,
  });
});

function ask(target: string, acceptEncoding: string): Reply {
  const [path, query = ''] = target.split('?');
  const r = handle({
    method: 'GET',
    path: path!,
    query,
    ip: '127.0.0.1',
    authorization: '',
    apiKey: '',
    acceptEncoding,
    ifNoneMatch: '',
    requestId: 'window-gzip.7',
  });
  if (r instanceof Promise) throw new Error('unexpected async reply');
  return r;
}
const encoding = (r: Reply) => replyHeaders(r).find(([k]) => k === 'Content-Encoding')?.[1];

describe('gzip windows written from their pieces', () => {
  it('gunzip to the identity body for any window and cursor page; fill and parts agree with the stated length', () => {
    // vaults with history that the route serves (a disabled vault is a 404)
    const ids = [...snapshot.world.series.keys()].filter(
      (id) => snapshot.world.series.get(id)!.length > 0 && ask(`/v1/vaults/${id}/timeseries?limit=1`, 'identity').status === 200,
    );
    expect(ids.length).toBeGreaterThan(0);
    let compressed = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...ids),
        // hourly series are the long ones: drawn as often as the other two together
        fc.constantFrom('hour', 'hour', 'day', 'week'),
        fc.constantFrom('asc', 'desc'),
        fc.double({ min: -0.1, max: 1, noNaN: true }),
        fc.option(fc.double({ min: 0, max: 1.2, noNaN: true }), { nil: undefined }),
        // small limits (the 1 KiB threshold, a point or a few) and large ones alike
        fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 21, max: 2000 })),
        fc.boolean(),
        (id, granularity, order, a, b, limit, page2) => {
          const s = snapshot.world.series.get(id)!;
          const [t0, t1] = [s.ts[0]!, s.ts[s.length - 1]!];
          const at = (f: number) => isoSeconds(Math.floor(t0 + f * (t1 - t0)));
          let target = `/v1/vaults/${id}/timeseries?granularity=${granularity}&order=${order}&limit=${limit}&start=${at(a)}`;
          if (b !== undefined && b >= a) target += `&end=${at(b)}`;
          let identity = ask(target, 'identity');
          expect(identity.status, target).toBe(200);
          // the next page when asked for and there is one
          const next = page2 ? (JSON.parse(Buffer.concat(replyParts(identity)).toString()).meta.next_cursor as string | null) : null;
          if (next !== null) {
            target += `&next=${next}`;
            identity = ask(target, 'identity');
            expect(identity.status, target).toBe(200);
          }
          const gz = ask(target, 'gzip, deflate, br, zstd');
          if (encoding(gz) !== 'gzip') {
            // small windows (1 KiB or less) go as they are
            expect(identity.length, target).toBeLessThanOrEqual(1024);
            return;
          }
          compressed++;
          const parts = Buffer.concat(replyParts(gz));
          const filled = Buffer.from(gz.template!.fill(gz.requestId));
          expect(filled.equals(parts), target).toBe(true);
          expect(filled.length).toBe(gz.length);
          expect(gunzipSync(filled).equals(Buffer.concat(replyParts(identity))), target).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    // the property reached the gzip path, not only small windows (a third of the draws do: 88–115 of 300 in ten runs)
    expect(compressed).toBeGreaterThan(50);
  });
});

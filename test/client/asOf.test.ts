// The SDK's `asOf` option (DESIGN §11.6) against a real `vaultd serve` on the demo world: every
// method whose route takes as_of sends it (a Date or an ISO string) and answers exactly what the
// server answers with that query; CURSOR_STALE is a typed CursorStaleError, and client.iterate.*
// starts a walk again once on it (the 409 comes from a loopback proxy in front of the real
// server: a reorg inside a walk cannot be made on demand against a served snapshot).
import { createServer, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, CursorStaleError, VaultdApiError, type VaultdClient } from 'vaultd/client';
import { idsOf, useServer } from '../api/server.js';
import { listenOnLoopback, type Loopback } from '../helpers/loopback.js';

const ctx = useServer('client-asof');
let client: VaultdClient;

const PAST = '2026-05-01T12:30:00Z';
const PAST_DATE = new Date('2026-05-01T12:30:00.750Z'); // sent as whole seconds

beforeAll(() => {
  client = createClient({ baseUrl: ctx.server.base });
});

/** The raw body of `path` with `as_of`, without its per-request field. */
async function raw(path: string): Promise<any> {
  const body = await ctx.api.ok(`${path}${path.includes('?') ? '&' : '?'}as_of=${PAST}`);
  return stable(body);
}

function stable(body: any): any {
  return { ...body, meta: { ...body.meta, request_id: undefined } };
}

describe('asOf on every method whose route takes as_of', () => {
  it('a Date and an ISO string send the same as_of, and the answer is the raw one', async () => {
    const vault = idsOf(ctx.world, 'visible')[0]!;
    const wallet = ctx.world.wallets[0]!;
    const held = (await client.positions(wallet, { asOf: PAST })).data[0]!.vault_id;
    const slug = ctx.world.vaults.find((v) => v.slug !== null && v.visibility !== 'disabled' && v.listed_at <= Date.parse(PAST) / 1000)?.slug;
    expect(slug, 'the demo world has a slug listed by then').toBeDefined();
    const cases: [string, (asOf: Date | string | undefined) => Promise<unknown>, string][] = [
      ['vaults', (asOf) => client.vaults({ asOf, limit: 3 }), '/v1/vaults?limit=3'],
      ['featured', (asOf) => client.featured({ asOf }), '/v1/vaults/featured'],
      ['vaultsBySlug', (asOf) => client.vaultsBySlug(slug!, { asOf }), `/v1/vaults/slug/${slug}`],
      ['vault', (asOf) => client.vault(vault, { asOf }), `/v1/vaults/${vault}`],
      ['vault+include', (asOf) => client.vault(vault, { asOf, include: ['quality'] }), `/v1/vaults/${vault}?include=quality`],
      ['definition', (asOf) => client.definition(vault, { asOf }), `/v1/vaults/${vault}/definition`],
      ['allocations', (asOf) => client.allocations(vault, { asOf }), `/v1/vaults/${vault}/allocations`],
      ['timeseries', (asOf) => client.timeseries(vault, { asOf, limit: 5 }), `/v1/vaults/${vault}/timeseries?limit=5`],
      ['strategies', (asOf) => client.strategies({ asOf }), '/v1/strategies'],
      ['tvl', (asOf) => client.tvl({ asOf, includeBreakdown: true }), '/v1/tvl?include_breakdown=true'],
      ['positions', (asOf) => client.positions(wallet, { asOf }), `/v1/users/${wallet}/positions`],
      ['position', (asOf) => client.position(wallet, held, { asOf }), `/v1/users/${wallet}/positions/${held}`],
      ['positionTimeseries', (asOf) => client.positionTimeseries(wallet, held, { asOf, limit: 5 }), `/v1/users/${wallet}/positions/${held}/timeseries?limit=5`],
      ['activity', (asOf) => client.activity(wallet, { asOf, limit: 5 }), `/v1/users/${wallet}/activity?limit=5`],
    ];
    for (const [name, call, path] of cases) {
      const expected = await raw(path);
      expect(expected.meta.as_of, name).toBe(PAST);
      expect(stable(await call(PAST)), name).toEqual(expected);
      expect(stable(await call(PAST_DATE)), name).toEqual(expected);
      // and without asOf, the live answer (no meta.as_of)
      const live = (await call(undefined)) as { meta: Record<string, unknown> };
      expect('as_of' in live.meta, name).toBe(false);
    }
  });

  it('iterate.* walks a past instant to the end', async () => {
    const wallet = ctx.world.wallets[0]!;
    const all = await client.activity(wallet, { asOf: PAST, limit: 1000 });
    expect(all.meta.next_cursor).toBeNull();
    const walked = [];
    for await (const row of client.iterate.activity(wallet, { asOf: PAST, limit: 3 })) walked.push(row);
    expect(walked).toEqual(all.data);
  });

  it('after the newest data: a typed 422 naming as_of', async () => {
    const e = await client.tvl({ asOf: '2027-01-01' }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(VaultdApiError);
    expect(e).toMatchObject({ status: 422, code: 'INVALID_PARAMETER' });
    expect((e as Error).message).toMatch(/after the newest data/);
  });

  it('the routes without as_of take no asOf (a type error)', () => {
    const vault = idsOf(ctx.world, 'visible')[0]!;
    const wallet = ctx.world.wallets[0]!;
    // compile-time only: `npm run typecheck` fails if these stop being errors
    const never = () => {
      // @ts-expect-error lots are answered from the latest data only
      void client.lots(wallet, vault, { asOf: PAST });
      // @ts-expect-error the APY provenance has `at`
      void client.apy(vault, { asOf: PAST });
      // @ts-expect-error prices have `at`
      void client.price({ chainId: 1, address: vault.split(':')[1]!, asOf: PAST });
    };
    expect(typeof never).toBe('function');
  });
});

// ---- CURSOR_STALE: a proxy that answers 409 for chosen requests carrying a cursor ----

interface Proxy {
  url: string;
  /** request targets in order, with the status the proxy answered (0 = forwarded) */
  hits: { target: string; stale: boolean }[];
}

let open: Loopback[] = [];
afterAll(async () => {
  await Promise.all(open.map((l) => l.close()));
  open = [];
});

/** Forwards to the real server; answers the server's 409 envelope for the n-th cursor requests in `staleAt` (1-based). */
async function staleProxy(staleAt: ReadonlySet<number>): Promise<Proxy> {
  const hits: Proxy['hits'] = [];
  let cursorRequests = 0;
  const target = new URL(ctx.server.base);
  const server = createServer((req, res) => {
    const withCursor = /[?&]next=/.test(req.url!);
    const stale = withCursor && staleAt.has(++cursorRequests);
    hits.push({ target: req.url!, stale });
    if (stale) {
      res.writeHead(409, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'req-409' });
      res.end(
        JSON.stringify({
          error: {
            code: 'CURSOR_STALE',
            message: 'rows this walk began on are gone (a chain reorganization removed them); start the walk again without next',
          },
        }),
      );
      return;
    }
    const up = httpRequest({ host: target.hostname, port: target.port, path: req.url, headers: req.headers, agent: false }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    up.on('error', (err) => res.destroy(err));
    up.end();
  });
  const l = await listenOnLoopback(server);
  open.push(l);
  return { url: l.url, hits };
}

describe('CURSOR_STALE', () => {
  it('iterate.* starts the walk again once from its first page', async () => {
    const wallet = ctx.world.wallets[0]!;
    const all = (await client.activity(wallet, { includeHidden: true, limit: 1000 })).data;
    expect(all.length).toBeGreaterThan(8);
    const proxy = await staleProxy(new Set([2])); // the walk's third page is stale
    const viaProxy = createClient({ baseUrl: proxy.url });
    const rows = [];
    for await (const row of viaProxy.iterate.activity(wallet, { includeHidden: true, limit: 4 })) rows.push(row);
    // pages 1 and 2 were yielded, then the walk began again and went to the end
    expect(rows).toEqual([...all.slice(0, 8), ...all]);
    const firsts = proxy.hits.filter((h) => !/[?&]next=/.test(h.target));
    expect(firsts).toHaveLength(2);
    expect(proxy.hits.filter((h) => h.stale)).toHaveLength(1);
    expect(proxy.hits[3]!.target, 'the restart asks without a cursor').not.toMatch(/next=/);
  });

  it('a second 409 in the same walk is thrown as a CursorStaleError', async () => {
    const wallet = ctx.world.wallets[0]!;
    const proxy = await staleProxy(new Set([1, 2]));
    const viaProxy = createClient({ baseUrl: proxy.url });
    const rows: unknown[] = [];
    const e = await (async () => {
      for await (const row of viaProxy.iterate.positions(wallet, { includeHidden: true, limit: 1 })) rows.push(row);
    })().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CursorStaleError);
    expect(e).toBeInstanceOf(VaultdApiError);
    expect(e).toMatchObject({ name: 'CursorStaleError', status: 409, code: 'CURSOR_STALE', requestId: 'req-409', retryable: false });
    expect(rows).toHaveLength(2); // the first page, then the first page again
    expect(proxy.hits.filter((h) => h.stale)).toHaveLength(2);
  });

  it('a single page call answers the CursorStaleError to its caller (no retry)', async () => {
    const wallet = ctx.world.wallets[0]!;
    const first = await client.activity(wallet, { limit: 2 });
    const proxy = await staleProxy(new Set([1]));
    const e = await createClient({ baseUrl: proxy.url })
      .activity(wallet, { limit: 2, next: first.meta.next_cursor! })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CursorStaleError);
    expect(proxy.hits).toHaveLength(1);
  });
});

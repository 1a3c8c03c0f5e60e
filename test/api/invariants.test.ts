// Invariants over every route's answers (DESIGN §4.7, seed Conventions 7): canonical decimal
// strings within their precision, RFC 3339 Z whole-second timestamps, hidden vaults only when
// asked for, disabled vaults nowhere.
import { beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../store/store.js';
import { testCommon } from '../helpers/common.js';
import { formatProblems } from './format.js';
import { copyDb, idsOf, startServer, useServer } from './server.js';
import { walletFacts, type WalletFacts } from './walletFacts.js';

const ctx = useServer('invariants');

interface Answer {
  path: string;
  body: any;
  text: string;
  /** the numeraire decimals of `native` amounts, when the body does not name its token */
  decimals: number | null;
}
const answers: Answer[] = [];
let facts: WalletFacts;

async function crawl(path: string, decimals: number | null = null): Promise<any> {
  const res = await ctx.api.get(path);
  expect(res.status, path).toBe(200);
  answers.push({ path, body: res.body, text: res.text, decimals });
  return res.body;
}

beforeAll(async () => {
  facts = await walletFacts(ctx.api, ctx.world, 30);
  const decimalsOf = new Map(ctx.world.vaults.map((v) => [v.vault_id, v.decimals]));
  for (const path of ['/v1/vaults', '/v1/vaults/featured', '/v1/strategies', '/v1/tvl', '/v1/tvl?include_breakdown=true', '/health/chains']) await crawl(path);
  const all = await crawl('/v1/vaults?include_hidden=true');
  const tokens = new Map<string, string>();
  for (const v of all.data) {
    const d = v.numeraire_token.decimals;
    tokens.set(`${v.numeraire_token.address}&chain_id=${v.chain_id}`, v.vault_id);
    await crawl(`/v1/vaults/${v.vault_id}`);
    await crawl(`/v1/vaults/${v.vault_id}/definition`);
    await crawl(`/v1/vaults/${v.vault_id}/allocations`);
    await crawl(`/v1/vaults/${v.vault_id}/timeseries`, d);
    await crawl(`/v1/vaults/${v.vault_id}/timeseries?granularity=hour&order=desc&limit=500`, d);
    if (v.group) await crawl(`/v1/vaults/slug/${v.group.slug}`);
  }
  for (const [token, vaultId] of tokens) {
    if (all.data.find((v: any) => v.vault_id === vaultId).metrics.tvl.usd === null) continue;
    await crawl(`/v1/prices?address=${token}`);
    await crawl(`/v1/prices/timeseries?address=${token}&start=2026-01-01&end=2026-06-01&granularity=day`);
  }
  for (const wallet of ctx.world.wallets.slice(0, 30)) {
    for (const q of ['', '?include_hidden=true']) {
      await crawl(`/v1/users/${wallet}/positions${q}`);
      await crawl(`/v1/users/${wallet}/activity${q}${q ? '&' : '?'}limit=1000`);
    }
  }
  for (const { wallet, vault_id } of [...facts.open.slice(0, 40), ...facts.exited.slice(0, 10)]) {
    const d = decimalsOf.get(vault_id)!;
    if (facts.open.some((p) => p.wallet === wallet && p.vault_id === vault_id)) await crawl(`/v1/users/${wallet}/positions/${vault_id}`);
    await crawl(`/v1/users/${wallet}/positions/${vault_id}/timeseries?granularity=week`, d);
  }
  await crawl(`/v1/users/${ctx.world.disabledWallet}/positions?include_hidden=true`);
  await crawl(`/v1/users/${ctx.world.disabledWallet}/activity?include_hidden=true&limit=1000`);
});

describe('number and time formats (DESIGN §4.7)', () => {
  it("decimal strings: canonical, no exponent, within the token's, 18 or 6 decimals", () => {
    expect(answers.length).toBeGreaterThan(300);
    const problems = answers.flatMap((a) => formatProblems(a.body, a.decimals).map((p) => `${a.path}: ${p}`));
    expect(problems.slice(0, 20)).toEqual([]);
  });

  it('amounts are strings, never JSON numbers (roi_pct, APYs, prices and allocations excepted by the seed)', () => {
    const AMOUNTS = new Set(['native', 'usd', 'unit_price', 'total_supply', 'shares_owned', 'shares_delta', 'pending_redeem_shares']);
    const NUMERIC_PARENTS = new Set(['roi_pct', 'price']);
    const bad: string[] = [];
    const visit = (node: unknown, parent: string, path: string): void => {
      if (Array.isArray(node)) return node.forEach((x, i) => visit(x, parent, `${path}[${i}]`));
      if (node === null || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node)) {
        if (typeof v === 'number' && AMOUNTS.has(k) && !NUMERIC_PARENTS.has(parent)) bad.push(`${path}.${k} = ${v}`);
        visit(v, k, `${path}.${k}`);
      }
    };
    for (const a of answers) visit(a.body, '', a.path);
    expect(bad.slice(0, 20)).toEqual([]);
  });

  it('every date-time is RFC 3339 UTC with Z and whole seconds; Unix-second fields are integers', () => {
    const dateTime = /"(?:timestamp|updated_at|refreshed_at|start|end)":"([^"]*)"/g;
    const bad: string[] = [];
    for (const a of answers) {
      for (const m of a.text.matchAll(dateTime)) if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(m[1]!)) bad.push(`${a.path}: ${m[0]}`);
      for (const m of a.text.matchAll(/"(?:block_timestamp|latest_timestamp|as_of)":(-?[\d.eE+]+)/g)) if (!/^\d+$/.test(m[1]!)) bad.push(`${a.path}: ${m[0]}`);
    }
    expect(bad.slice(0, 20)).toEqual([]);
  });
});

describe('visibility (seed Conventions 7, DESIGN §4.5, §4.6)', () => {
  it('disabled vaults appear in no answer at all', () => {
    const addresses = idsOf(ctx.world, 'disabled').map((id) => id.split(':')[1]!);
    expect(addresses.length).toBeGreaterThan(0);
    const leaks = answers.filter((a) => addresses.some((addr) => a.text.includes(addr))).map((a) => a.path);
    expect(leaks).toEqual([]);
  });

  it('hidden vaults appear in no default list', () => {
    const hidden = idsOf(ctx.world, 'hidden');
    const defaults = answers.filter(
      (a) =>
        !a.path.includes('include_hidden=true') &&
        (a.path === '/v1/vaults' || a.path === '/v1/vaults/featured' || /^\/v1\/users\/[^/]+\/(positions|activity)(\?|$)/.test(a.path)),
    );
    expect(defaults.length).toBeGreaterThan(60);
    const leaks = defaults.filter((a) => hidden.some((id) => a.text.includes(`"${id}"`))).map((a) => a.path);
    expect(leaks).toEqual([]);
    // …while the include_hidden answers do show them
    expect(answers.some((a) => a.path.includes('include_hidden=true') && hidden.some((id) => a.text.includes(`"${id}"`)))).toBe(true);
  });

  it('strategy cards count only visible vaults', () => {
    const strategies = answers.find((a) => a.path === '/v1/strategies')!.body.data;
    const visibleTagged = ctx.world.vaults.filter((v) => v.visibility === 'visible' && v.strategy_id !== null).length;
    expect(strategies.reduce((n: number, c: { vault_count: number }) => n + c.vault_count, 0)).toBe(visibleTagged);
  });
});

describe('determinism (DESIGN §7)', () => {
  it('a second server over a copy of the world answers the same, apart from request_id, refreshed_at and cursors', async () => {
    // started now, seconds after the first: a publish-clock value in a body would differ. The
    // copy forgets the first server's publish identity, or it would republish under it.
    const copy = copyDb(ctx.world, 'twin');
    const store = await createStore(testCommon(), { path: copy });
    await store.run('test.forget_identity', "DELETE FROM settings WHERE key = 'publish.identity'");
    await store.close();
    const twin = await startServer(copy, { dir: ctx.world.dir, name: 'twin', config: { rate_limits: { anonymous_per_minute: 1_000_000 } } });
    const strip = (body: any) =>
      body?.meta ? { ...body, meta: { ...body.meta, request_id: null, refreshed_at: null, next_cursor: body.meta.next_cursor === null ? null : 'set' } } : body;
    try {
      const compared = answers.filter((a) => !a.path.startsWith('/health'));
      let differentClock = false;
      const diffs: string[] = [];
      for (const a of compared) {
        const other = await twin.api.get(a.path);
        if (other.body?.meta?.refreshed_at !== a.body?.meta?.refreshed_at) differentClock = true;
        if (JSON.stringify(strip(other.body)) !== JSON.stringify(strip(a.body))) diffs.push(a.path);
      }
      expect(differentClock, 'the two servers published at different seconds').toBe(true);
      expect(diffs.slice(0, 10)).toEqual([]);
    } finally {
      await twin.stop();
    }
  });
});

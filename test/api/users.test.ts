// Wallet routes (DESIGN §4.4, §4.6, §4.8, §5.2): the positions list and its inclusion rule,
// single positions, PnL identities, and the activity log's order, filters and sign conventions.
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from './format.js';
import { idsOf, UNKNOWN_WALLET, useServer } from './server.js';
import { walletFacts, type ActivityRow, type WalletFacts } from './walletFacts.js';

const ctx = useServer('users');
let facts: WalletFacts;
beforeAll(async () => {
  facts = await walletFacts(ctx.api, ctx.world);
});

const ids = (data: { vault_id: string }[]) => data.map((d) => d.vault_id);
const sign = (s: string) => new Decimal(s).comparedTo(0);
const positions = (wallet: string, query = '') => ctx.api.ok(`/v1/users/${wallet}/positions${query}`);
const activity = (wallet: string, query = '') => ctx.api.ok(`/v1/users/${wallet}/activity${query}`);

describe('/v1/users/{wallet}/positions', () => {
  it('lists open positions of visible vaults; include_hidden adds the hidden ones', async () => {
    const { wallet, vault_id } = facts.hiddenOpen[0]!;
    const plain = await positions(wallet);
    const all = await positions(wallet, '?include_hidden=true');
    expect(ids(plain.data)).not.toContain(vault_id);
    expect(ids(all.data)).toContain(vault_id);
    expect(all.data.filter((p: { vault_id: string }) => p.vault_id !== vault_id)).toEqual(plain.data);
    const visible = new Set(idsOf(ctx.world, 'visible'));
    for (const p of plain.data) expect(visible.has(p.vault_id)).toBe(true);
    for (const body of [plain, all]) {
      expect(body.meta).toMatchObject({ count: body.data.length, limit: 100, next_cursor: null, partial_errors: null, start: null, end: null });
    }
  });

  it('every listed position holds shares or pending exposure; pending ones are listed', async () => {
    for (const wallet of ctx.world.wallets.slice(0, 20)) {
      for (const p of (await positions(wallet, '?include_hidden=true')).data) {
        const m = p.metrics;
        expect(m.shares_owned !== '0' || m.pending_deposit_assets.native !== '0' || m.pending_redeem_shares !== '0').toBe(true);
        expect(p.wallet_address).toBe(wallet);
      }
    }
    const { wallet, vault_id } = facts.pending[0]!;
    expect(ids((await positions(wallet, '?include_hidden=true')).data)).toContain(vault_id);
  });

  it('fully exited positions are excluded from the list and 404 on the single route', async () => {
    for (const { wallet, vault_id } of facts.exited.slice(0, 5)) {
      expect(ids((await positions(wallet, '?include_hidden=true')).data)).not.toContain(vault_id);
      await ctx.api.fails(`/v1/users/${wallet}/positions/${vault_id}`, 404, 'NOT_FOUND');
    }
  });

  it('an unknown wallet gets an empty list (200)', async () => {
    const body = await positions(UNKNOWN_WALLET);
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ count: 0, next_cursor: null, partial_errors: null, start: null, end: null });
  });

  it('a mixed-case wallet address is the same wallet', async () => {
    const wallet = ctx.world.wallets[0]!;
    const upper = `0x${wallet.slice(2).toUpperCase()}`;
    expect((await positions(upper)).data).toEqual((await positions(wallet)).data);
  });

  it('disabled vaults never appear, even for a wallet that used one', async () => {
    const disabled = new Set(idsOf(ctx.world, 'disabled'));
    const wallet = ctx.world.disabledWallet;
    for (const p of (await positions(wallet, '?include_hidden=true')).data) expect(disabled.has(p.vault_id)).toBe(false);
    for (const id of disabled) await ctx.api.fails(`/v1/users/${wallet}/positions/${id}`, 404, 'NOT_FOUND');
  });

  it('error: a bad wallet or limit is 422 naming the parameter', async () => {
    expect((await ctx.api.fails('/v1/users/0xnothex/positions', 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'wallet_address' });
    expect((await ctx.api.fails(`/v1/users/${UNKNOWN_WALLET}/positions?limit=501`, 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'limit' });
  });
});

describe('/v1/users/{wallet}/positions/{vault_id}', () => {
  it('equals the list item; single-item meta', async () => {
    const { wallet, vault_id } = facts.open[0]!;
    const list = (await positions(wallet, '?include_hidden=true')).data;
    const body = await ctx.api.ok(`/v1/users/${wallet}/positions/${vault_id}`);
    expect(body.data).toEqual(list.find((p: { vault_id: string }) => p.vault_id === vault_id));
    expect(Object.keys(body.meta).sort()).toEqual(['refreshed_at', 'request_id']);
  });

  it('pnl.total = realized + unrealized exactly, natively and in USD', async () => {
    for (const wallet of ctx.world.wallets.slice(0, 30)) {
      for (const { metrics: m } of (await positions(wallet, '?include_hidden=true')).data) {
        expect(new Decimal(m.pnl.realized.native).plus(m.pnl.unrealized.native).toFixed()).toBe(m.pnl.total.native);
        if (m.pnl.total.usd !== null) expect(new Decimal(m.pnl.realized.usd).plus(m.pnl.unrealized.usd).toFixed()).toBe(m.pnl.total.usd);
      }
    }
  });

  it('error: never touched and unknown wallet are 404', async () => {
    const { wallet, vault_id } = facts.untouched[0]!;
    await ctx.api.fails(`/v1/users/${wallet}/positions/${vault_id}`, 404, 'NOT_FOUND');
    await ctx.api.fails(`/v1/users/${UNKNOWN_WALLET}/positions/${vault_id}`, 404, 'NOT_FOUND');
  });
});

describe('/v1/users/{wallet}/activity', () => {
  const key = (r: ActivityRow) => [r.block_timestamp, Number(r.vault_id.split(':')[0]), r.block_number, r.log_index];
  const cmp = (a: number[], b: number[]) => a.map((x, i) => x - b[i]!).find((d) => d !== 0) ?? 0;

  it('desc by default in wallet-wide order; asc is its reverse', async () => {
    const wallet = ctx.world.wallets[0]!;
    const desc = (await activity(wallet, '?limit=1000')).data;
    expect(desc.length).toBeGreaterThan(10);
    for (let i = 1; i < desc.length; i++) expect(cmp(key(desc[i - 1]), key(desc[i]))).toBeGreaterThanOrEqual(0);
    const asc = (await activity(wallet, '?limit=1000&order=asc')).data;
    expect(asc).toEqual([...desc].reverse());
    const page = await activity(wallet);
    expect(page.meta).toMatchObject({ limit: 100, start: null, end: null, partial_errors: null });
    expect(page.data).toEqual(desc.slice(0, 100));
  });

  it('vault_id filters the log to one vault, in the same order', async () => {
    const wallet = ctx.world.wallets[0]!;
    const all = facts.activity.get(wallet)!;
    const vaultId = all[0]!.vault_id;
    const [chain, address] = vaultId.split(':');
    const filtered = (await activity(wallet, `?limit=1000&include_hidden=true&vault_id=${chain}:${address!.toUpperCase().replace('0X', '0x')}`)).data;
    expect(filtered).toEqual(all.filter((r) => r.vault_id === vaultId));
  });

  it("hidden vaults' rows only with include_hidden; disabled vaults' never", async () => {
    const { wallet, vault_id } = facts.hiddenOpen[0]!;
    const plain = (await activity(wallet, '?limit=1000')).data;
    const all = facts.activity.get(wallet)!;
    expect(all.some((r) => r.vault_id === vault_id)).toBe(true);
    expect(plain).toEqual(all.filter((r) => r.vault_id !== vault_id));
    // named by vault_id, a hidden vault's rows come without include_hidden (the real client cannot send it)
    const named = (await activity(wallet, `?limit=1000&vault_id=${vault_id}`)).data;
    expect(named.length).toBeGreaterThan(0);
    expect(named).toEqual(all.filter((r) => r.vault_id === vault_id));
    const disabled = idsOf(ctx.world, 'disabled')[0]!;
    expect((await activity(ctx.world.disabledWallet, `?include_hidden=true&vault_id=${disabled}`)).data).toEqual([]);
    const everything = (await activity(ctx.world.disabledWallet, '?include_hidden=true&limit=1000')).data;
    expect(everything.some((r: ActivityRow) => r.vault_id === disabled)).toBe(false);
  });

  it('an unknown wallet gets an empty page', async () => {
    const body = await activity(UNKNOWN_WALLET);
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ count: 0, next_cursor: null, start: null, end: null });
  });

  it('sign conventions of the deposit ledger for every row type (DESIGN §4.6)', async () => {
    const seen = new Set<string>();
    const problems: string[] = [];
    const numeraire = new Map<string, string>();
    for (const v of (await ctx.api.ok('/v1/vaults?include_hidden=true')).data) numeraire.set(v.vault_id, v.numeraire_token.address);
    for (const rows of facts.activity.values()) {
      for (const r of rows) {
        const sync = r.request_hash === null;
        // type: [allowed share signs, allowed asset signs]
        const expected: Record<string, [number[], number[]]> = {
          deposit: [[1], sync ? [1] : [0]],
          deposit_pending: [[0], [1]],
          deposit_refunded: [[0], [-1]],
          withdraw: [sync ? [-1] : [0], [-1]],
          withdraw_pending: [[-1], [0]],
          withdraw_refunded: [[1], [0]],
          transfer_in: [[1], [0, 1]],
          transfer_out: [[-1], [-1, 0]],
        };
        const [shares, assets] = expected[r.type]!;
        if (!shares.includes(sign(r.shares_delta))) problems.push(`${r.type} ${r.id}: shares_delta ${r.shares_delta}`);
        if (!assets.includes(sign(r.assets_delta.native))) problems.push(`${r.type} ${r.id}: assets_delta ${r.assets_delta.native}`);
        const hashless = r.type.startsWith('transfer');
        const requestRow = r.type.endsWith('_pending') || r.type.endsWith('_refunded');
        if ((hashless && !sync) || (requestRow && sync)) problems.push(`${r.type} ${r.id}: request_hash ${r.request_hash}`);
        const token = r.assets_delta.token as { address?: string } | null;
        if (token?.address !== numeraire.get(r.vault_id)) problems.push(`${r.type} ${r.id}: token ${token?.address} is not the numeraire`);
        seen.add(`${r.type}${sync ? '' : ':async'}`);
      }
    }
    expect(problems.slice(0, 20)).toEqual([]);
    for (const t of [
      'deposit',
      'deposit:async',
      'deposit_pending:async',
      'deposit_refunded:async',
      'withdraw:async',
      'withdraw_pending:async',
      'withdraw_refunded:async',
      'transfer_in',
      'transfer_out',
    ]) {
      expect(seen, t).toContain(t);
    }
  });

  it('a refunded request nets to zero: its rows sum to nothing', async () => {
    let refunds = 0;
    for (const rows of facts.activity.values()) {
      const byHash = new Map<string, ActivityRow[]>();
      for (const r of rows) if (r.request_hash) byHash.set(r.request_hash, [...(byHash.get(r.request_hash) ?? []), r]);
      for (const lifecycle of byHash.values()) {
        if (!lifecycle.some((r) => r.type.endsWith('_refunded'))) continue;
        refunds++;
        const sum = (k: 'shares' | 'assets') => lifecycle.reduce((acc, r) => acc.plus(k === 'shares' ? r.shares_delta : r.assets_delta.native), new Decimal(0));
        expect(sum('shares').isZero() && sum('assets').isZero(), JSON.stringify(lifecycle)).toBe(true);
      }
    }
    expect(refunds).toBeGreaterThan(0);
  });

  it('error: bad vault_id, order or limit are 422 naming the parameter', async () => {
    const wallet = ctx.world.wallets[0]!;
    for (const [query, parameter] of [
      ['vault_id=nope', 'vault_id'],
      ['order=sideways', 'order'],
      ['limit=1001', 'limit'],
      ['include_hidden=maybe', 'include_hidden'],
    ]) {
      expect((await ctx.api.fails(`/v1/users/${wallet}/activity?${query}`, 422, 'INVALID_PARAMETER')).details, query).toEqual({ parameter });
    }
  });
});

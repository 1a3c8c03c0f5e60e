// Wallet examples found over HTTP: open, exited and never-touched positions, positions in
// hidden vaults and with pending requests (DESIGN §4.4 inclusion rule, §4.8).
import type { Api, World } from './server.js';

export interface Pair {
  wallet: string;
  vault_id: string;
}

export interface WalletFacts {
  /** open positions (in the include_hidden list) */
  open: Pair[];
  /** vaults the wallet has activity in but no open position */
  exited: Pair[];
  /** enabled vaults the wallet never touched */
  untouched: Pair[];
  /** open positions in hidden vaults */
  hiddenOpen: Pair[];
  /** open positions with a pending deposit or redeem */
  pending: Pair[];
  /** per wallet: its whole activity log (include_hidden, desc) */
  activity: Map<string, ActivityRow[]>;
}

export interface ActivityRow {
  id: string;
  type: string;
  vault_id: string;
  block_timestamp: number;
  block_number: number;
  log_index: number;
  request_hash: string | null;
  shares_delta: string;
  assets_delta: { native: string; token: { decimals: number | null } | null };
}

/** Scan the most active `limit` wallets (activity logs fit one page of 1000 in this world). */
export async function walletFacts(api: Api, world: World, limit = 40): Promise<WalletFacts> {
  const hidden = new Set(world.vaults.filter((v) => v.visibility === 'hidden').map((v) => v.vault_id));
  const enabled = world.vaults.filter((v) => v.visibility !== 'disabled').map((v) => v.vault_id);
  const facts: WalletFacts = { open: [], exited: [], untouched: [], hiddenOpen: [], pending: [], activity: new Map() };
  for (const wallet of world.wallets.slice(0, limit)) {
    const [positions, activity] = await Promise.all([
      api.ok(`/v1/users/${wallet}/positions?include_hidden=true&limit=500`),
      api.ok(`/v1/users/${wallet}/activity?include_hidden=true&limit=1000`),
    ]);
    if (activity.meta.next_cursor !== null) throw new Error(`wallet ${wallet} has more than 1000 activity rows`);
    facts.activity.set(wallet, activity.data);
    const open = new Set<string>();
    for (const p of positions.data) {
      open.add(p.vault_id);
      facts.open.push({ wallet, vault_id: p.vault_id });
      if (hidden.has(p.vault_id)) facts.hiddenOpen.push({ wallet, vault_id: p.vault_id });
      if (p.metrics.pending_deposit_assets.native !== '0' || p.metrics.pending_redeem_shares !== '0') facts.pending.push({ wallet, vault_id: p.vault_id });
    }
    const touched = new Set<string>(activity.data.map((r: ActivityRow) => r.vault_id));
    for (const vault_id of touched) if (!open.has(vault_id)) facts.exited.push({ wallet, vault_id });
    for (const vault_id of enabled) if (!touched.has(vault_id)) facts.untouched.push({ wallet, vault_id });
  }
  for (const [name, list] of Object.entries(facts)) {
    if (Array.isArray(list) && list.length === 0) throw new Error(`no wallet among the first ${limit} has a(n) ${name} position`);
  }
  return facts;
}

#!/usr/bin/env node
// A wallet's positions with value and PnL, from a running vaultd:
//   node client/examples/portfolio.mjs <wallet> [baseUrl]     (baseUrl default http://localhost:8080)
// Inside this repository `vaultd/client` resolves to the built client (npm run build).
import { createClient, isVaultdClientError } from 'vaultd/client';

const [wallet, baseUrl = 'http://localhost:8080'] = process.argv.slice(2);
if (!wallet) {
  console.error('usage: node client/examples/portfolio.mjs <wallet> [baseUrl]');
  process.exit(2);
}

const client = createClient({ baseUrl, apiKey: process.env.VAULTD_API_KEY || undefined });

const usd = (s) => (s === null ? 'n/a' : `$${s}`);
const pct = (x) => (x === null ? 'n/a' : `${x.toFixed(2)} %`);

try {
  const names = new Map();
  for await (const v of client.iterate.vaults({ includeHidden: true })) names.set(v.vault_id, v.name);
  const positions = [];
  for await (const p of client.iterate.positions(wallet, { includeHidden: true })) positions.push(p);

  console.log(`wallet ${wallet.toLowerCase()}: ${positions.length} positions`);
  for (const p of positions) {
    const m = p.metrics;
    const symbol = p.numeraire_token?.symbol ?? '';
    console.log(`\n${p.vault_id}  ${names.get(p.vault_id) ?? ''}`);
    console.log(`  shares      ${m.shares_owned}${m.pending_redeem_shares !== '0' ? ` (+${m.pending_redeem_shares} pending redeem)` : ''}`);
    if (m.pending_deposit_assets.native !== '0') console.log(`  pending     ${m.pending_deposit_assets.native} ${symbol} deposit`);
    console.log(`  value       ${m.value.native} ${symbol}  (${usd(m.value.usd)})`);
    console.log(`  cost basis  ${m.cost_basis.native} ${symbol}  (${usd(m.cost_basis.usd)})`);
    console.log(
      `  PnL         ${m.pnl.total.native} ${symbol}  (${usd(m.pnl.total.usd)})  realized ${m.pnl.realized.native}, unrealized ${m.pnl.unrealized.native}`,
    );
    console.log(`  ROI         ${pct(m.roi_pct.native)} native, ${pct(m.roi_pct.usd)} USD`);
  }
} catch (err) {
  if (!isVaultdClientError(err)) throw err;
  console.error(`error ${err.code}: ${err.message}`);
  process.exit(1);
}

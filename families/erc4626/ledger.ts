// A plain ERC-4626 vault (EIP-4626): Deposit and Withdraw are the owner's deposit and withdraw,
// share Transfers between wallets are transfers; the unit price is totalAssets / totalSupply.
// Shares are read as 18-decimal units, as for every family (DESIGN §4.1).
import type { Ledger } from '../ledger.js';
import {
  ERC4626_EVENTS,
  TOTAL_ASSETS,
  TOTAL_SUPPLY,
  assetsAndSupplyCalls,
  assetsAndSupplySnapshot,
  depositOrWithdrawRow,
  lowerAddress,
  shareTransferRows,
} from '../shared/erc4626.js';

const ASSET = 'function asset() view returns (address)';

export const ERC4626_LEDGER: Ledger = {
  name: 'erc4626',
  contracts: () => ({}),
  sharedRoles: [],
  events: ERC4626_EVENTS,
  functions: [TOTAL_ASSETS, TOTAL_SUPPLY, ASSET],
  rows: (sink) => ({
    log(d) {
      if (d.name === 'Deposit' || d.name === 'Withdraw') depositOrWithdrawRow(sink, d);
      else if (d.name === 'Transfer') shareTransferRows(sink, d);
    },
    endTx() {},
  }),
  requestLookups: () => [],
  snapshotCalls: assetsAndSupplyCalls,
  snapshot: assetsAndSupplySnapshot,
  facts: (v) => [{ field: 'asset', call: { address: v.address, fn: ASSET }, value: lowerAddress }],
};

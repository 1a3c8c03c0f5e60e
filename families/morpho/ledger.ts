// Morpho vaults (MetaMorpho v1, v2): ERC-4626 ledgers plus MetaMorpho's fee accrual. The fee
// shares are minted to the fee recipient just before AccrueInterest, in the same transaction:
// booked as the recipient's `transfer_in` from the zero address (at market value), so every
// holder's rows sum to its balanceOf and the vault's rows to its totalSupply.
import type { DecodedLog, Ledger, LedgerVault } from '../ledger.js';
import {
  ERC4626_EVENTS,
  OWNER,
  TOTAL_ASSETS,
  TOTAL_SUPPLY,
  ZERO_ADDRESS,
  assetsAndSupplyCalls,
  assetsAndSupplySnapshot,
  depositOrWithdrawRow,
  lowerAddress,
  shareTransferRows,
} from '../shared/erc4626.js';

const CURATOR = 'function curator() view returns (address)';
const FEE = 'function fee() view returns (uint256)';
const FEE_RECIPIENT = 'function feeRecipient() view returns (address)';
const TIMELOCK = 'function timelock() view returns (uint256)';

export const MORPHO_LEDGER: Ledger = {
  name: 'morpho',
  contracts: () => ({}),
  sharedRoles: [],
  events: {
    ...ERC4626_EVENTS,
    AccrueInterest: { signature: 'event AccrueInterest(uint256 newTotalAssets, uint256 feeShares)', emitters: ['vault'] },
    SetFee: { signature: 'event SetFee(address indexed caller, uint256 newFee)', emitters: ['vault'] },
    SetCurator: { signature: 'event SetCurator(address indexed newCurator)', emitters: ['vault'] },
  },
  functions: [TOTAL_ASSETS, TOTAL_SUPPLY, OWNER, CURATOR, FEE, FEE_RECIPIENT, TIMELOCK],
  rows(sink) {
    /** the transaction's latest mint: a fee mint precedes its AccrueInterest */
    let mint: DecodedLog | null = null;
    return {
      log(d) {
        switch (d.name) {
          case 'Deposit':
          case 'Withdraw':
            depositOrWithdrawRow(sink, d);
            break;
          case 'Transfer':
            if (d.args.from === ZERO_ADDRESS) mint = d;
            shareTransferRows(sink, d);
            break;
          case 'AccrueInterest': {
            const v = d.emitter.vault;
            const fee = d.args.feeShares as bigint;
            if (fee > 0n && mint && mint.emitter.vault === v && mint.args.value === fee) {
              sink.row(mint, 0, v, { kind: 'transfer_in', wallet: mint.args.to as string, counterparty: ZERO_ADDRESS, assets: 0n, shares: fee });
            }
            mint = null;
            break;
          }
          default:
            // Approval, SetFee, SetCurator: governance, no balance moves
            break;
        }
      },
      endTx() {
        mint = null;
      },
    };
  },
  requestLookups: () => [],
  snapshotCalls: assetsAndSupplyCalls,
  snapshot: assetsAndSupplySnapshot,
  facts: (v: LedgerVault) => [
    { field: 'owner', call: { address: v.address, fn: OWNER }, value: lowerAddress },
    { field: 'curator', call: { address: v.address, fn: CURATOR }, value: lowerAddress },
    { field: 'fee_wad', call: { address: v.address, fn: FEE }, value: String },
    { field: 'fee_recipient', call: { address: v.address, fn: FEE_RECIPIENT }, value: lowerAddress },
    { field: 'timelock_seconds', call: { address: v.address, fn: TIMELOCK }, value: Number },
  ],
};

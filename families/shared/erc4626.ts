// The ERC-4626 standard as ledgers read it (EIP-4626, EIP-20): its events, how each becomes
// vault_events rows, and the hourly totalAssets()/totalSupply() reads whose ratio is the unit
// price (DESIGN §4.1). The Morpho ledger adds MetaMorpho's own events on top.
import type { DecodedLog, LedgerCall, LedgerEvent, LedgerVault, RowSink } from '../ledger.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** A vault share's ERC-20 events: Transfer books moves between wallets, Approval writes nothing. */
export const ERC20_EVENTS: Readonly<Record<'Transfer' | 'Approval', LedgerEvent>> = {
  Transfer: { signature: 'event Transfer(address indexed from, address indexed to, uint256 value)', emitters: ['vault'] },
  Approval: { signature: 'event Approval(address indexed owner, address indexed spender, uint256 value)', emitters: ['vault'] },
};

export const ERC4626_EVENTS: Readonly<Record<'Deposit' | 'Withdraw' | 'Transfer' | 'Approval', LedgerEvent>> = {
  Deposit: { signature: 'event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares)', emitters: ['vault'] },
  Withdraw: {
    signature: 'event Withdraw(address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares)',
    emitters: ['vault'],
  },
  ...ERC20_EVENTS,
};

export const TOTAL_ASSETS = 'function totalAssets() view returns (uint256)';
export const TOTAL_SUPPLY = 'function totalSupply() view returns (uint256)';
export const OWNER = 'function owner() view returns (address)';

/** Deposit and Withdraw: a `deposit` / `withdraw` of the share owner (the receiver of the assets may differ). */
export function depositOrWithdrawRow(sink: RowSink, d: DecodedLog): void {
  const a = d.args;
  const kind = d.name === 'Deposit' ? 'deposit' : 'withdraw';
  sink.row(d, 0, d.emitter.vault, { kind, wallet: a.owner as string, assets: a.assets as bigint, shares: a.shares as bigint });
}

/**
 * A share Transfer between wallets: `transfer_out` (sub 0) and `transfer_in` (sub 1). Mints and
 * burns write nothing here (the ledger's Deposit/Withdraw or equivalent cover them), nor do moves
 * to or from `escrow` (a contract holding shares on a wallet's behalf).
 */
export function shareTransferRows(sink: RowSink, d: DecodedLog, escrow: string | null = null): void {
  const from = d.args.from as string;
  const to = d.args.to as string;
  if (from === ZERO_ADDRESS || to === ZERO_ADDRESS) return;
  if (escrow !== null && (from === escrow || to === escrow)) return;
  const shares = d.args.value as bigint;
  const v = d.emitter.vault;
  sink.row(d, 0, v, { kind: 'transfer_out', wallet: from, counterparty: to, assets: 0n, shares });
  sink.row(d, 1, v, { kind: 'transfer_in', wallet: to, counterparty: from, assets: 0n, shares });
}

/** The hourly reads of an ERC-4626 vault: totalAssets() then totalSupply(). */
export function assetsAndSupplyCalls(v: LedgerVault): LedgerCall[] {
  return [
    { address: v.address, fn: TOTAL_ASSETS },
    { address: v.address, fn: TOTAL_SUPPLY },
  ];
}

/** Their snapshot: the engine divides the two for the unit price (DESIGN §4.1); none is published. */
export function assetsAndSupplySnapshot(_v: LedgerVault, [assets, supply]: readonly bigint[]) {
  return { total_assets: assets!, total_supply: supply!, unit_price: null };
}

/** A lower-cased address result, or undefined (the configured value stands). */
export const lowerAddress = (value: unknown): string | undefined => (typeof value === 'string' ? value.toLowerCase() : undefined);

// What a family's ledger tells the chain indexer (jobs/chain, which stays family-agnostic): the
// contracts whose logs it reads, the events it decodes and how each becomes vault_events rows,
// the hourly reads behind a snapshot, and the registry's definition fields read on chain.
// Signatures are Solidity text: jobs/chain parses them once, so families need no ABI library.
import type { EventRow, RequestRecord, SnapshotRow } from '../model/rows.js';

/** The configuration entry's optional family addresses (common/config.ts `registry.vaults[]`). */
export interface ConfigAddresses {
  provisioner?: string | null;
  fee_calculator?: string | null;
}

/** A registered vault as the indexer reads it. */
export interface LedgerVault {
  vault_id: string;
  /** lowercase */
  address: string;
  vault_type: string;
  ledger: Ledger;
  numeraire: { address: string; decimals: number; symbol: string };
  /** the family's other contracts by role (`Ledger.contracts`), lowercase addresses */
  contracts: Readonly<Record<string, string | null>>;
}

/** The contract a log came from: the vault itself (role `vault`) or one of its family's contracts. */
export interface Emitter {
  ledger: Ledger;
  role: string;
  /** the vault it belongs to (a contract several vaults share: the first registered) */
  vault: LedgerVault;
}

/** A log, as far as a ledger needs it. */
export interface LedgerLog {
  address: string;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
}

export interface DecodedLog {
  log: LedgerLog;
  /** the ledger's own name for the event (`Ledger.events` key) */
  name: string;
  /** decoded arguments; addresses lowercase, hashes lowercase hex, amounts bigint */
  args: Record<string, string | bigint | boolean | number>;
  emitter: Emitter;
}

/** An async request (Aera's provisioner), kept until its settlement, which may come ranges later (table chain_requests). */
export type { RequestRecord };

/** Data a ledger finds wrong but can still book around (counted as bad data). */
export type LedgerIssue = 'orphan_settlement' | 'unpaired_settlement';

/** What a row gives; the rest (chain, block, log, tx, time, vault, numeraire token) comes from the log. */
export type RowFields = Pick<EventRow, 'kind' | 'wallet' | 'assets' | 'shares'> & Partial<EventRow>;

/** Where a ledger writes one batch's rows (jobs/chain/eventRows.ts keeps them in log order). */
export interface RowSink {
  chainId: number;
  row(d: DecodedLog, sub: number, vault: LedgerVault, r: RowFields): void;
  issue(d: DecodedLog, reason: LedgerIssue, detail: string): void;
  /** a request taken in this batch, else one stored by an earlier range */
  request(provisioner: string, hash: string): RequestRecord | undefined;
  addRequest(r: RequestRecord): void;
}

/** One batch's row builder: logs in (block, log index) order, `endTx` at every transaction's end. */
export interface LedgerRows {
  log(d: DecodedLog): void;
  endTx(): void;
}

export interface LedgerEvent {
  /** e.g. `event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares)` */
  signature: string;
  /** the roles whose contracts may emit it; from any other contract it is bad data */
  emitters: readonly string[];
}

/** A view call at a block: `fn` is one of `Ledger.functions`. */
export interface LedgerCall {
  address: string;
  fn: string;
  args?: readonly unknown[];
}

/** A definition field read on chain: the call, and its value as the field holds it (undefined: keep the config's). */
export interface LedgerFact {
  field: string;
  call: LedgerCall;
  value(result: unknown): unknown;
}

export interface Ledger {
  /** names the ledger in bad-data details (`Deposit from a aera address`) and logs */
  name: string;
  /** the family's contracts besides the vault, by role, from the config entry */
  contracts(entry: ConfigAddresses): Record<string, string | null>;
  /** roles whose contract several vaults share (a fee calculator): its logs belong to no one vault's checkpoint */
  sharedRoles: readonly string[];
  /** every event it decodes, by its own name (two versions of one event get two names) */
  events: Readonly<Record<string, LedgerEvent>>;
  /** every view function it calls (Solidity text) */
  functions: readonly string[];
  rows(sink: RowSink): LedgerRows;
  /** the stored requests a batch's settlements need, as (provisioner, hash) */
  requestLookups(decoded: readonly DecodedLog[]): { provisioner: string; hash: string }[];
  /** the reads of an hourly snapshot, or why the vault cannot have one */
  snapshotCalls(v: LedgerVault): LedgerCall[] | string;
  /** a snapshot from the integer results of `snapshotCalls`, in order */
  snapshot(v: LedgerVault, results: readonly bigint[]): Pick<SnapshotRow, 'total_assets' | 'total_supply' | 'unit_price'>;
  /** definition fields read on chain for the registry (DESIGN §5.2), one multicall per chain */
  facts(v: LedgerVault): LedgerFact[];
}

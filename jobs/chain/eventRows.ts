// Decoded logs → raw event rows in activity vocabulary (model/rows.ts), pure. Each log goes to
// its emitter's ledger (families/*/ledger.ts says how its events become rows); this keeps the
// rows in log order, marks every transaction's end, and holds the requests a batch takes and
// the stored ones its settlements need (requests may come from an earlier range).
import type { EventRow } from '../../model/rows.js';
import type { Ledger, LedgerRows, RequestRecord, RowSink } from '../../families/index.js';
import type { AddressBook } from './addressBook.js';
import type { DecodedLog } from './decodeLog.js';
import type { BadDataReason } from './ingestMetrics.js';

export type { RequestRecord };

export interface RowIssue {
  reason: BadDataReason;
  detail: string;
  block_number: number;
  log_index: number;
}

export interface EventRowsInput {
  chainId: number;
  book: AddressBook;
  /** sorted by (block, log index) */
  decoded: readonly DecodedLog[];
  /** block timestamp (every block of `decoded` must be known) */
  ts: (block: number) => number;
  /** requests stored by earlier ranges, by `${provisioner}:${hash}` */
  stored: ReadonlyMap<string, RequestRecord>;
}

export interface EventRowsOutput {
  rows: EventRow[];
  requests: RequestRecord[];
  issues: RowIssue[];
}

export const requestKey = (provisioner: string, hash: string) => `${provisioner}:${hash}`;

/** The stored requests a batch needs: what each ledger's settlements name and the batch did not take itself. */
export function requestLookups(decoded: readonly DecodedLog[]): { provisioner: string; hash: string }[] {
  const byLedger = new Map<Ledger, DecodedLog[]>();
  for (const d of decoded) {
    const list = byLedger.get(d.emitter.ledger);
    if (list) list.push(d);
    else byLedger.set(d.emitter.ledger, [d]);
  }
  return [...byLedger].flatMap(([ledger, logs]) => ledger.requestLookups(logs));
}

export function toEventRows(input: EventRowsInput): EventRowsOutput {
  const { chainId } = input;
  const rows: EventRow[] = [];
  const requests: RequestRecord[] = [];
  const issues: RowIssue[] = [];
  const fresh = new Map<string, RequestRecord>();

  const sink: RowSink = {
    chainId,
    row(d, sub, vault, r) {
      rows.push({
        chain_id: chainId,
        block_number: d.log.blockNumber,
        log_index: d.log.logIndex,
        sub_index: sub,
        block_hash: d.log.blockHash,
        tx_hash: d.log.transactionHash,
        ts: input.ts(d.log.blockNumber),
        vault_id: vault.vault_id,
        counterparty: null,
        token: vault.numeraire.address,
        request_hash: null,
        ...r,
      });
    },
    issue(d, reason, detail) {
      issues.push({ reason, detail, block_number: d.log.blockNumber, log_index: d.log.logIndex });
    },
    request(provisioner, hash) {
      const key = requestKey(provisioner, hash);
      return fresh.get(key) ?? input.stored.get(key);
    },
    addRequest(r) {
      fresh.set(requestKey(r.provisioner, r.request_hash), r);
      requests.push(r);
    },
  };

  // one row builder per ledger of the book, in book order (each keeps its own per-transaction state)
  const builders = new Map<Ledger, LedgerRows>();
  for (const v of input.book.vaults) if (!builders.has(v.ledger)) builders.set(v.ledger, v.ledger.rows(sink));
  const endTx = () => {
    for (const b of builders.values()) b.endTx();
  };

  let tx: string | null = null;
  for (const d of input.decoded) {
    if (d.log.transactionHash !== tx) {
      endTx();
      tx = d.log.transactionHash;
    }
    builders.get(d.emitter.ledger)!.log(d);
  }
  endTx();
  return { rows, requests, issues };
}

// One position's audit as a compute-pool task (DESIGN §11.4): its item under FIFO cost basis
// and its lots. A replay of the position's rows (cheap for most; a whale's takes milliseconds),
// so the read model runs it in-thread when small and on a worker otherwise, and keeps results
// in a bounded cache. Lots come back unformatted (row indexes and exact amounts as strings): a
// page of them is formatted when asked (engine/publish/auditViews.ts).
import { contextOf, eventTableOf, type PositionsInput, type VaultInput } from '../positions/positionItems.js';
import { positionNow } from '../positions/positionMetrics.js';
import { auditReplay } from './auditReplay.js';
import { type AuditParts, fifoMetrics, type LotOut, lotsOut, positionReturns } from './positionAudit.js';

export interface PositionAuditInput {
  kind: 'positionAudit';
  events: PositionsInput['events'];
  rows: Int32Array;
  from: number;
  to: number;
  vault: VaultInput;
  wallet: string;
  parts: AuditParts;
}

export interface PositionAuditOutput {
  /** the position item under FIFO cost basis (the average item's shape), JSON */
  fifoItem: string | null;
  /** the `returns` object, JSON */
  returns: string | null;
  lots: LotOut[] | null;
}

/** The audit of one position (pure; in a worker or in-thread). */
export function computePositionAudit(input: PositionAuditInput): PositionAuditOutput {
  const ctx = contextOf(input.vault);
  const now = ctx ? positionNow(ctx) : null;
  if (!ctx || now === null) return { fifoItem: null, returns: null, lots: null };
  const table = eventTableOf(input.events);
  const st = auditReplay({ table, idx: input.rows, from: input.from, to: input.to }, ctx);
  const v = input.vault;
  return {
    fifoItem: input.parts.fifo
      ? JSON.stringify({ vault_id: v.vault_id, wallet_address: input.wallet, numeraire_token: v.numeraire, metrics: fifoMetrics(st, ctx, now) })
      : null,
    returns: input.parts.returns ? JSON.stringify(positionReturns(st, ctx, now)) : null,
    lots: input.parts.lots ? lotsOut(st, ctx) : null,
  };
}

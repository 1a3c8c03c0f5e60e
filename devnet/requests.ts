// Bookkeeping of the Aera-like async requests: each gets a fate when it is made (solved by the
// solver before its deadline, refunded by its user after it, or left pending at the end) and
// the hour that fate is due. The first two requests of each kind on each provisioner are
// solved then refunded, so even a short scenario shows both outcomes both ways on both versions.
import type { Address, Hex } from 'viem';
import type { Rng } from '../jobs/demo/prng.js';

export type RequestKind = 'deposit' | 'redeem';
export type RequestFate = 'solve' | 'refund' | 'pending';

export interface AeraRequest {
  kind: RequestKind;
  provisioner: Address;
  user: Address;
  /** set from the *Requested log once the request is mined */
  hash?: Hex;
  /** unix seconds; solvable up to and including it, refundable after it */
  deadline: number;
  fate: RequestFate;
  dueHour: number;
}

export interface RequestBook {
  /** Picks the fate and due hour of a request made in `hour` with the given lifetime. */
  plan(provisioner: Address, kind: RequestKind, hour: number, lifetimeHours: number, forcePending?: boolean): Pick<AeraRequest, 'fate' | 'dueHour'>;
  add(request: AeraRequest): void;
  /** Removes and returns the requests due at or before `hour` (late ones too, after an outage). */
  takeDue(hour: number): AeraRequest[];
  /** Requests whose fate never came (left pending on chain), in creation order. */
  open(): readonly AeraRequest[];
  /** Puts back a request whose fate changed (a solve that came too late becomes a refund). */
  reschedule(request: AeraRequest, fate: RequestFate, dueHour: number): void;
}

export function createRequestBook(rng: Rng): RequestBook {
  const made = new Map<string, number>();
  let live: AeraRequest[] = [];
  return {
    plan(provisioner, kind, hour, lifetimeHours, forcePending = false) {
      if (forcePending) return { fate: 'pending', dueHour: Number.POSITIVE_INFINITY };
      const key = `${provisioner}:${kind}`;
      const n = made.get(key) ?? 0;
      made.set(key, n + 1);
      const fate: RequestFate = n === 0 ? 'solve' : n === 1 ? 'refund' : rng.chance(0.75) ? 'solve' : 'refund';
      // a solver acts within a few hours, strictly before the deadline hour ends;
      // an unsolved request is refunded by its user some hours after the deadline
      const dueHour = fate === 'solve' ? hour + rng.int(1, Math.min(8, lifetimeHours)) : hour + lifetimeHours + rng.int(1, 6);
      return { fate, dueHour };
    },
    add(request) {
      live.push(request);
    },
    takeDue(hour) {
      const due = live.filter((r) => r.dueHour <= hour);
      live = live.filter((r) => r.dueHour > hour);
      return due;
    },
    open: () => live,
    reschedule(request, fate, dueHour) {
      request.fate = fate;
      request.dueHour = dueHour;
      live.push(request);
    },
  };
}

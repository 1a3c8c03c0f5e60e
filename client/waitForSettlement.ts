// Waits for an async deposit or redeem request to leave `pending` (DESIGN §4.6 flows), by
// polling the wallet's activity log newest-first down to the request row. Where the server has
// the live feed it also listens on `wallet:{address}` (DESIGN §11.7–§11.8): a `wallet.request`
// message saying the request settled or was refunded wakes the wait for its poll at once, so the
// answer comes with the publish, not up to `pollMs` later; without a feed it is polling alone.
import { activityFlows, type Flow } from './activityFlows.js';
import type { VaultdIterators } from './createClient.js';
import type { LiveStream, StreamOptions } from './stream.js';
import { VaultdClientError } from './errors.js';
import { linkSignals, sleep } from './sleep.js';
import type { ActivityRow } from './types.gen.js';

export interface WaitForSettlementOptions {
  wallet: string;
  /** the request's `request_hash` (as in its `*_pending` row) */
  requestHash: string;
  /** the request's vault; narrows each poll to that vault's rows */
  vaultId?: string;
  /** between polls; default 5000 */
  pollMs?: number;
  /** overall bound; default 120000; then a VaultdClientError with code TIMEOUT */
  timeoutMs?: number;
  /** listen on the live feed for the request's settlement (default true; false: poll only) */
  stream?: boolean;
  signal?: AbortSignal;
}

/**
 * The request's flow once it is settled or refunded (`status` tells which). Throws TIMEOUT when
 * it is still pending (or not yet indexed) after `timeoutMs`, and the signal's reason on abort.
 */
export async function waitForSettlement(
  client: { iterate: Pick<VaultdIterators, 'activity'>; stream?: (options: StreamOptions) => LiveStream },
  options: WaitForSettlementOptions,
): Promise<Flow<ActivityRow>> {
  const { wallet, vaultId, pollMs = 5000, timeoutMs = 120_000 } = options;
  const hash = options.requestHash.toLowerCase();
  for (const [name, value] of [
    ['pollMs', pollMs],
    ['timeoutMs', timeoutMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new VaultdClientError('INVALID_ARGUMENT', `waitForSettlement: ${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
    }
  }
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const { signal, dispose } = linkSignals([options.signal, deadline.signal]);
  let last: Flow<ActivityRow> | undefined;
  // the feed only shortens a wait: its failures (no feed on this server, a cut connection) are polling's to cover
  let woken = false;
  let wake: (() => void) | null = null;
  const live = options.stream !== false && client.stream ? client.stream({ topics: [`wallet:${wallet.toLowerCase()}`], signal }) : null;
  live?.on('error', () => undefined);
  live?.on('message', (m) => {
    const d = m.data as { request_hash?: string; status?: string } | null;
    if (m.kind !== 'wallet.request' || d?.request_hash?.toLowerCase() !== hash || (d.status !== 'settled' && d.status !== 'refunded')) return;
    woken = true;
    wake?.();
  });
  try {
    for (;;) {
      const rows: ActivityRow[] = [];
      // newest first: the terminal row, when there is one, comes before its request row
      for await (const row of client.iterate.activity(wallet, {
        vaultId,
        includeHidden: vaultId === undefined ? true : undefined,
        order: 'desc',
        limit: 1000,
        signal,
      })) {
        if (row.request_hash !== hash) continue;
        rows.push(row);
        if (row.type.endsWith('_pending')) break;
      }
      last = activityFlows(rows).find((f) => f.request_hash === hash);
      if (last !== undefined && last.status !== 'pending') return last;
      if (woken) {
        // the feed said so: the poll that follows it sees the terminal row (published before the message)
        woken = false;
        continue;
      }
      const tick = new AbortController();
      wake = () => tick.abort();
      const both = linkSignals([signal, tick.signal]);
      try {
        await sleep(pollMs, both.signal);
      } catch (err) {
        if (!tick.signal.aborted || signal.aborted) throw err;
      } finally {
        wake = null;
        both.dispose();
      }
    }
  } catch (err) {
    if (deadline.signal.aborted && !options.signal?.aborted) {
      throw new VaultdClientError(
        'TIMEOUT',
        `waitForSettlement: request ${hash} of wallet ${wallet} is ${last ? 'still pending' : 'not in the activity log'} after ${timeoutMs} ms`,
        { details: { wallet, request_hash: hash, status: last?.status ?? null }, cause: err },
      );
    }
    throw err;
  } finally {
    live?.close();
    clearTimeout(timer);
    dispose();
  }
}

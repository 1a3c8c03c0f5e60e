// Bounded retry with exponential backoff and jitter (STYLE habit 7): only what the classifier
// calls retryable is retried; a provider's Retry-After is honoured up to the cap.
import { classifyRpcError, type RpcFault } from './rpcErrors.js';

export interface RetryOptions {
  /** total attempts, the first included */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 6, baseMs: 100, maxMs: 3_000 };

/** A provider's Retry-After is waited out in full up to this (longer is a provider asking for an outage). */
export const RETRY_AFTER_MAX_MS = 60_000;

export interface RetryHooks {
  classify?: (err: unknown) => RpcFault;
  /** called before each wait; `fault.kind` labels the metric */
  onRetry?: (fault: RpcFault, attempt: number, delayMs: number) => void;
  /** which faults bypass the retry (the caller handles them, e.g. range faults) */
  passThrough?: (fault: RpcFault) => boolean;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Backoff before attempt `attempt + 1` (attempt counts from 1): base·2^(attempt−1), jittered to 50–100 %. */
export function backoffMs(attempt: number, opts: RetryOptions, random: () => number = Math.random): number {
  const full = Math.min(opts.maxMs, opts.baseMs * 2 ** (attempt - 1));
  return Math.round(full * (0.5 + random() / 2));
}

export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions, hooks: RetryHooks = {}): Promise<T> {
  const classify = hooks.classify ?? classifyRpcError;
  const wait = hooks.sleep ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const fault = classify(err);
      if (!fault.retryable || hooks.passThrough?.(fault) || attempt >= opts.attempts) throw err;
      // the backoff is capped by maxMs; a provider's Retry-After is honoured beyond it (up to RETRY_AFTER_MAX_MS)
      const delay = Math.max(backoffMs(attempt, opts, hooks.random), Math.min(fault.retryAfterMs ?? 0, RETRY_AFTER_MAX_MS));
      hooks.onRetry?.(fault, attempt, delay);
      await wait(delay);
    }
  }
}

// An abortable wait, and linking several AbortSignals into one (AbortSignal.any is not in
// Node 18, which the client supports).

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A signal aborted when any of `signals` is; `dispose` detaches the listeners. */
export function linkSignals(signals: (AbortSignal | undefined)[]): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const listeners: [AbortSignal, () => void][] = [];
  for (const s of signals) {
    if (!s) continue;
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    const on = () => controller.abort(s.reason);
    s.addEventListener('abort', on, { once: true });
    listeners.push([s, on]);
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const [s, on] of listeners) s.removeEventListener('abort', on);
    },
  };
}

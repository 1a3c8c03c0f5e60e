// Waiting for a state change a test cannot subscribe to (a log line, an HTTP answer): probe it
// until it holds. No deadline of its own: a loaded machine is slow, not wrong, and the test's
// timeout is the one bound (a short deadline here is a test that fails on a busy CI machine).

/** Probe every `everyMs` until `done(value)`; resolves with that value. */
export async function eventually<T>(probe: () => T | Promise<T>, done: (value: T) => boolean, everyMs = 100): Promise<T> {
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

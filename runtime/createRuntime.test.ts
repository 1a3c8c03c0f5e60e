// The runtime over real sources' shape and a real DuckDB store: a round that changed inputs
// brings exactly one engine refresh, a round that changed nothing none; retryable failures are
// retried with backoff and others not; two sources never overlap; the stop's signal reaches a
// round in flight; a replaced file is reloaded whole before a round extends it, and another
// process's write is refreshed in. Rounds are fired by the test (no wall clock).
import { renameSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VaultdError } from '../common/errors.js';
import type { Source } from '../jobs/source.js';
import { createStore, type Store } from '../store/store.js';
import { tempDir, testCommon } from '../test/helpers/common.js';
import { gate, manualTimers } from '../test/helpers/manualTimers.js';
import { createRuntime } from './createRuntime.js';

let store: Store;
beforeAll(async () => {
  store = await createStore(testCommon(), { path: ':memory:' });
});
afterAll(async () => {
  await store.close();
});

/** An engine that counts what the runtime asks of it. */
function countingEngine() {
  const calls: string[] = [];
  return {
    calls,
    engine: {
      refresh: async (signal?: AbortSignal) => {
        signal?.throwIfAborted();
        calls.push('refresh');
        return null;
      },
      recomputeFull: async () => {
        calls.push('recomputeFull');
        return {};
      },
    },
  };
}

function setup(sources: Source[], file?: string) {
  const common = testCommon();
  const manual = manualTimers();
  const { engine, calls } = countingEngine();
  const runtime = createRuntime({
    common,
    store: (work) => work(store),
    engine,
    sources,
    ...(file ? { file } : {}),
    timers: manual.timers,
    retry: { attempts: 3, baseMs: 50, maxMs: 1_000 },
  });
  return { common, manual, calls, runtime };
}

const source = (name: string, round: Source['round']): Source => ({ name, schedule: { cron: '0 0 1 1 *' }, round });

describe('createRuntime', () => {
  it('a round that changed inputs brings one refresh; one that changed nothing, none', async () => {
    let changed = true;
    const rounds: string[] = [];
    const { manual, calls, runtime, common } = setup([
      source('demo', async (s) => {
        // the round gets the store the runtime opened
        rounds.push(s === store ? 'store' : 'other');
        return { inputsChanged: changed };
      }),
    ]);
    runtime.start();
    await manual.fire('demo');
    expect(calls).toEqual(['refresh']);
    changed = false;
    await manual.fire('demo');
    expect(calls).toEqual(['refresh']);
    expect(rounds).toEqual(['store', 'store']);
    await common.shutdown.close('test');
  });

  it('a round that deleted rows (a reorg) or listed a vault reloads the world whole: a refresh only appends', async () => {
    const results = [{ inputsChanged: true, rowsRemoved: true }, { inputsChanged: true }, { inputsChanged: true, registryChanged: true }];
    let k = 0;
    const { manual, calls, runtime, common } = setup([source('chain', async () => results[k++]!)]);
    runtime.start();
    for (let i = 0; i < results.length; i++) await manual.fire('chain');
    expect(calls).toEqual(['recomputeFull', 'refresh', 'recomputeFull']);
    await common.shutdown.close('test');
  });

  it('before the first publish (prime) rounds run without a refresh, and a failed one does not stop the others', async () => {
    const ran: string[] = [];
    const { calls, runtime, common } = setup([
      source('ingest', async () => {
        ran.push('ingest');
        throw new VaultdError('SOURCE_FAILED', 'registry unreadable');
      }),
      source('prices', async () => {
        ran.push('prices');
        return { inputsChanged: true };
      }),
    ]);
    await runtime.prime();
    expect(ran).toEqual(['ingest', 'prices']);
    expect(calls).toEqual([]);
    await common.shutdown.close('test');
  });

  it('a retryable failure is retried with backoff; a non-retryable one is not (runOnce rejects with it)', async () => {
    let flaky = 0;
    let broken = 0;
    const { manual, calls, runtime, common } = setup([
      source('prices', async () => {
        if (++flaky < 3) throw new VaultdError('SOURCE_FAILED', 'rate limited', { retryable: true });
        return { inputsChanged: true };
      }),
      source('ingest', async () => {
        broken++;
        throw new VaultdError('SOURCE_FAILED', 'chain id mismatch');
      }),
    ]);
    await expect(runtime.runOnce()).rejects.toThrow('chain id mismatch');
    expect([flaky, broken]).toEqual([3, 1]);
    expect(manual.sleeps).toEqual([50, 100]);
    expect(calls).toEqual(['refresh']);
    await common.shutdown.close('test');
  });

  it('two sources never overlap: a round waits for the other source’s round in flight', async () => {
    const events: string[] = [];
    const first = gate();
    const { manual, runtime, common } = setup([
      source('ingest', async () => {
        events.push('ingest start');
        await first.promise;
        events.push('ingest end');
        return { inputsChanged: false };
      }),
      source('prices', async () => {
        events.push('prices');
        return { inputsChanged: false };
      }),
    ]);
    runtime.start();
    const a = manual.fire('ingest');
    const b = manual.fire('prices');
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(events).toEqual(['ingest start']);
    first.open();
    await Promise.all([a, b]);
    expect(events).toEqual(['ingest start', 'ingest end', 'prices']);
    await common.shutdown.close('test');
  });

  it('the stop reaches a round in flight: it ends, nothing is refreshed, and the close waits for it', async () => {
    const started = gate();
    let ended = '';
    const { manual, calls, runtime, common } = setup([
      source('ingest', async (_s, signal) => {
        started.open();
        // a long round: ranges until the stop
        while (!signal.aborted) await new Promise((r) => setImmediate(r));
        ended = (signal.reason as VaultdError).code;
        return { inputsChanged: true };
      }),
    ]);
    runtime.start();
    const round = manual.fire('ingest');
    await started.promise;
    await common.shutdown.close('SIGTERM');
    // the close returned after the round had ended
    expect(ended).toBe('STOPPED');
    await round;
    expect(calls).toEqual([]);
    expect(runtime.nextRun()).toBeNull();
  });

  it('a file replaced under the runtime is reloaded whole before a round; another process’s write is refreshed in', async () => {
    const dir = tempDir('vaultd-runtime-');
    const file = join(dir, 'world.duckdb');
    writeFileSync(file, 'a');
    const { manual, calls, runtime, common } = setup([source('demo', async () => ({ inputsChanged: false }))], file);
    try {
      runtime.start();
      await manual.fire('demo');
      expect(calls).toEqual([]);
      // another process writes the file (a `vaultd ingest` beside the server)
      appendFileSync(file, 'more rows');
      await manual.fire('demo');
      expect(calls).toEqual(['refresh']);
      await manual.fire('demo');
      expect(calls).toEqual(['refresh']);
      // another world renamed onto the path (`vaultd demo --force`)
      writeFileSync(join(dir, 'other.duckdb'), 'b');
      renameSync(join(dir, 'other.duckdb'), file);
      await manual.fire('demo');
      expect(calls).toEqual(['refresh', 'recomputeFull']);
      await manual.fire('demo');
      expect(calls).toEqual(['refresh', 'recomputeFull']);
    } finally {
      await common.shutdown.close('test');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

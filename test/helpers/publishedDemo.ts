// Test helper: a demo world written to a DuckDB file and fully recomputed by the engine — the
// snapshot `vaultd serve` would publish from it — and that snapshot as the server holds it.
import { createEngine } from '../../engine/engine.js';
import type { Snapshot } from '../../engine/publish/buildSnapshot.js';
import type { ReadModel } from '../../engine/publish/index.js';
import { createReadModel } from '../../engine/publish/readModel.js';
import { createDemoWorld } from '../../jobs/demo/createDemoWorld.js';
import type { DemoParams } from '../../jobs/demo/index.js';
import { createStore } from '../../store/store.js';
import { testCommon } from './common.js';

/** The demo world of `params` at `path` (created, or replaced), recomputed in full at `clock` (ten minutes past its `now` unless given). */
export async function publishedDemo(path: string, params: DemoParams, clock = params.now + 600): Promise<Snapshot> {
  const common = testCommon();
  await createDemoWorld(common, { path, params, force: true });
  const store = await createStore(common, { path });
  try {
    const engine = createEngine(common, (work) => work(store), { clock: () => clock });
    await engine.recomputeFull();
    return engine.current()!;
  } finally {
    await store.close();
  }
}

/** A snapshot as the server reads it: its read model. */
export const servedOf = (snapshot: Snapshot): ReadModel => createReadModel(snapshot);

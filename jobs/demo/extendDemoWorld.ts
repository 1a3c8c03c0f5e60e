// Under `vaultd serve` the demo world behaves like a live chain (DESIGN §7): as real hours
// pass, the next hours' snapshots and events are simulated and appended, with the new end
// recorded in the same transaction so a crash or a retry never adds a row twice.
import { createRawWriter } from '../../store/rawWriter.js';
import { readRegistry } from '../../store/registryStore.js';
import { getSetting, setSetting } from '../../store/settings.js';
import type { Store } from '../../store/store.js';
import { DEMO_SETTING } from './createDemoWorld.js';
import { lastFullHour, simulateDemo, type DemoParams } from './index.js';

export interface DemoExtension {
  from: number;
  end: number;
  rows: Record<string, number>;
}

/** Append the hours in (stored end, last full hour of `nowMs`]; null when nothing is due or no demo world. */
export async function extendDemoWorld(store: Store, nowMs: number): Promise<DemoExtension | null> {
  const raw = await getSetting(store, DEMO_SETTING);
  if (!raw) return null;
  const { end, ...params } = JSON.parse(raw) as DemoParams & { end: number };
  const until = lastFullHour(nowMs);
  if (until <= end) return null;
  const registry = await readRegistry(store);
  const writer = await createRawWriter(store, 'dedupe');
  simulateDemo(params, registry, writer.sink, { fromTs: end, until });
  return store.transaction('demo.extend', async () => {
    const rows = await writer.finish();
    await setSetting(store, DEMO_SETTING, JSON.stringify({ ...params, end: until }));
    return { from: end, end: until, rows };
  });
}

// Under `vaultd serve` the demo world behaves like a live chain (DESIGN §7, §11.6): as its clock
// passes, the next rows (snapshots, events, prices, allocations, TVL readings) are simulated and
// appended, vaults whose listing time has come are added to the registry, and the new end is
// recorded in the same transaction, so a crash or a retry never adds a row twice. The world it
// reaches at T holds exactly the rows `vaultd demo --now T` of the same seed and start writes.
import { addListed } from '../../store/registryStore.js';
import { createRawWriter } from '../../store/rawWriter.js';
import { getSetting, setSetting } from '../../store/settings.js';
import type { Store } from '../../store/store.js';
import { DEMO_SETTING } from './createDemoWorld.js';
import { buildDemoRegistry, type DemoParams, simulateDemo } from './index.js';

const MAX_SECONDS = 32_503_680_000;

export interface DemoExtension {
  from: number;
  end: number;
  rows: Record<string, number>;
  /** vaults listed in (from, end] */
  listed: number;
}

/** The stored world's parameters and how far it was built; null without a demo world. */
export async function demoWorldOf(store: Store): Promise<(DemoParams & { end: number }) | null> {
  const raw = await getSetting(store, DEMO_SETTING);
  return raw ? (JSON.parse(raw) as DemoParams & { end: number }) : null;
}

/** Append the rows in (stored end, until] (`until` in seconds, or a function of the stored end); null when nothing is due or no demo world. */
export async function extendDemoWorld(store: Store, target: number | ((end: number) => number)): Promise<DemoExtension | null> {
  const stored = await demoWorldOf(store);
  if (!stored) return null;
  const { end, ...params } = stored;
  const until = typeof target === 'number' ? target : target(end);
  if (until > MAX_SECONDS) throw new Error(`extendDemoWorld: until ${until} is past the year 3000; pass seconds, not milliseconds`);
  if (until <= end) return null;
  const registry = buildDemoRegistry(params);
  const writer = await createRawWriter(store, 'dedupe');
  simulateDemo(params, registry, writer.sink, { fromTs: end, until });
  const listed = registry.vaults.filter((v) => v.listed_at > end && v.listed_at <= until);
  const known = new Set(registry.vaults.filter((v) => v.listed_at <= end).map((v) => v.group_id));
  const groups = registry.groups.filter((g) => !known.has(g.id) && listed.some((v) => v.group_id === g.id));
  return store.transaction('demo.extend', async () => {
    const rows = await writer.finish();
    if (listed.length > 0) await addListed(store, listed, groups);
    await setSetting(store, DEMO_SETTING, JSON.stringify({ ...params, end: until }));
    return { from: end, end: until, rows, listed: listed.length };
  });
}

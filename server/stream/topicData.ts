// The `data` of each live-feed message, taken from the read model's own REST answers (DESIGN
// §11.7: "data has exactly the REST shape"): a page's data cut out of its prebuilt bytes, list
// items split out of the list answer, the /health body the route builds. Nothing here builds a
// shape of its own, so a message and the REST answer of the same generation cannot drift.
import type { ActivityKey, ItemsAnswer, Page, ReadModel } from '../../engine/publish/index.js';
import { VAULT_LIST_LIMIT } from '../../engine/publish/index.js';
import type { RouteContext } from '../routes/context.js';
import { health } from '../routes/health.js';

const DATA_HEAD = Buffer.from('{"data":');
const META = Buffer.from(',"meta":{');

/** A page's `data` bytes: the prefix after `{"data":` up to `,"meta":{` (meta is the body's last key). */
export function pageData(page: Page): Buffer {
  const p = page.prefix;
  if (!p.subarray(0, DATA_HEAD.length).equals(DATA_HEAD)) throw new Error('a page that does not start with {"data":');
  return p.subarray(DATA_HEAD.length, p.lastIndexOf(META));
}

/** Each item of a JSON array (its text) by the key `keyOf` reads from it. */
function itemsBy(arrayJson: string, keyOf: (item: Record<string, unknown>) => string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const item of JSON.parse(arrayJson) as Record<string, unknown>[]) out.set(keyOf(item), Buffer.from(JSON.stringify(item)));
  return out;
}

const joined = (parts: Buffer[]) => `[${Buffer.concat(parts).toString()}]`;

/** The /v1/vaults items by vault id (hidden vaults only with includeHidden, as in the list). */
export function vaultItems(model: ReadModel, includeHidden: boolean): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  let after: [number, string] | null = null;
  do {
    // one less than the list's page size: never the prebuilt first page, always items
    const answer = model.vaultList({ includeHidden, after, limit: VAULT_LIST_LIMIT - 1 });
    if ('page' in answer) break;
    for (const [k, v] of itemsBy(joined(answer.parts), (item) => String(item.vault_id))) out.set(k, v);
    after = answer.nextKey;
  } while (after !== null);
  return out;
}

/** /v1/tvl's data, or null when TVL is not published. */
export function tvlData(model: ReadModel): Buffer | null {
  const page = model.tvl(false);
  return page ? pageData(page) : null;
}

/** The /health body for `model` (the route's own). */
export function healthData(model: ReadModel, jobs: boolean, started: number): Buffer {
  const body = health({ model, jobs, started } as RouteContext);
  return body.kind === 'raw' ? body.body : Buffer.from('{}');
}

/** The newest point of the vault's hourly series (/v1/vaults/{id}/timeseries?granularity=hour&order=desc&limit=1), or null. */
export async function vaultPoint(model: ReadModel, vaultId: string): Promise<Buffer | null> {
  if (!model.hasVault(vaultId)) return null;
  const answer = await model.vaultWindow(vaultId, { granularity: 'hour', order: 'desc', limit: 1 });
  return answer.count > 0 ? Buffer.from(Buffer.concat(answer.parts).toString().replace(/^,|,$/g, '')) : null;
}

/** The wallet's open positions (/v1/users/{w}/positions items, hidden vaults left out) by vault id. */
export async function walletPositions(model: ReadModel, wallet: string): Promise<Map<string, Buffer>> {
  const ready = model.walletReady(wallet);
  if (ready) await ready;
  const out = new Map<string, Buffer>();
  let after = 0;
  for (;;) {
    const answer = model.positions(wallet, { includeHidden: false, after, limit: 500 });
    for (const [k, v] of itemsBy(joined(answer.parts), (item) => String(item.vault_id))) out.set(k, v);
    if (answer.nextKey === null) return out;
    after = answer.nextKey;
  }
}

/** Rows looked at, at most, for the new activity of one wallet in one publish. */
const ACTIVITY_SCAN = 1000;

/**
 * The wallet's activity rows newer than the row `seen` (its JSON), oldest first, as the
 * /v1/users/{w}/activity items; and the newest row (the next call's `seen`). With `seen` null
 * nothing is new yet (the topic starts here).
 */
export async function newActivity(model: ReadModel, wallet: string, seen: string | null): Promise<{ rows: Buffer[]; newest: string | null }> {
  const ready = model.walletReady(wallet);
  if (ready) await ready;
  const rows: string[] = [];
  let after: ActivityKey | null = null;
  let newest: string | null = null;
  while (rows.length < ACTIVITY_SCAN) {
    const answer: ItemsAnswer<ActivityKey> = await model.activity(wallet, { vaultId: null, includeHidden: false, order: 'desc', after, limit: 100 });
    const page = (JSON.parse(joined(answer.parts)) as unknown[]).map((r) => JSON.stringify(r));
    for (const row of page) {
      newest ??= row;
      if (seen === null || row === seen) return { rows: rows.reverse().map((r) => Buffer.from(r)), newest };
      rows.push(row);
    }
    if (answer.nextKey === null) break;
    after = answer.nextKey;
  }
  return { rows: seen === null ? [] : rows.reverse().map((r) => Buffer.from(r)), newest: newest ?? seen };
}

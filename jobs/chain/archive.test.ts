// A pruned node (issue 38 item 2): the devnet behind a stand-in that refuses state below a block
// with geth's words. The ingest says so in one line per chain (and stalls, rather than read
// nothing hour after hour); with `chains[].history_from` (a block or an instant) it indexes
// from there, and its snapshots and events are exactly those of an archive ingest from there on.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../common/common.js';
import { loadConfig, parseConfig, type Config } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createStore, type Store } from '../../store/store.js';
import { testCommon } from '../../test/helpers/common.js';
import { startRpcStandIn, type RpcStandIn } from '../../test/helpers/chain/rpcStandIn.js';
import { scenarioConfigInput, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';
import { createIngestRuntime, ingestOnce } from './ingestOnce.js';

let sc: Scenario;
let pruned: RpcStandIn;
/** the oldest block whose state the stand-in keeps */
let keepFrom = 0;
let full: Store;
const stores: Store[] = [];

function configFor(url: string, historyFrom?: number | string): Config {
  const input = scenarioConfigInput(sc.manifest, { rpcUrls: [url] });
  const chains = input.chains!.map((c) => ({ ...c, ...(historyFrom === undefined ? {} : { history_from: historyFrom }) }));
  return { ...parseConfig(VAULT_TYPES, { ...input, chains }, 'test'), source: null, log_level: 'silent' };
}

/** A common whose log lines are kept (JSON objects). */
function recordingCommon(): { common: ReturnType<typeof testCommon>; lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const logger = pino({ level: 'info', formatters: { level: (label) => ({ level: label }) } }, sink);
  return { common: createCommon(loadConfig(VAULT_TYPES, {}, {}), { logger }), lines };
}

const snapshots = (s: Store, from: number) =>
  s.rows<{ vault_id: string; ts: number; block_number: number }>(
    'test.snapshots',
    'SELECT vault_id, epoch(ts)::BIGINT AS ts, block_number, total_assets::VARCHAR AS a, total_supply::VARCHAR AS s, unit_price::VARCHAR AS p FROM vault_snapshots WHERE block_number >= $1 ORDER BY vault_id, ts',
    [from],
  );
const events = (s: Store, from: number) =>
  s.rows(
    'test.events',
    'SELECT block_number, log_index, sub_index, vault_id, kind, wallet, assets::VARCHAR AS assets, shares::VARCHAR AS shares FROM vault_events WHERE block_number >= $1 ORDER BY block_number, log_index, sub_index',
    [from],
  );

beforeAll(async () => {
  sc = await startScenario({ chainId: 4747, days: 3, seed: 9, wallets: 8 });
  keepFrom = sc.manifest.endBlock - 30;
  pruned = await startRpcStandIn(sc.devnet.rpcUrl, { prunedBelow: keepFrom });
  full = await createStore(testCommon(), { path: ':memory:' });
  stores.push(full);
  const [r] = await ingestOnce(testCommon(), full, configFor(sc.devnet.rpcUrl));
  expect(r!.status).toBe('ok');
});

afterAll(async () => {
  for (const s of stores) await s.close();
  await pruned?.close();
  await sc?.devnet.stop();
});

describe('a pruned RPC', () => {
  it('one clear line per chain, however many rounds; the round stalls with the same words', async () => {
    const { common, lines } = recordingCommon();
    const store = await createStore(common, { path: ':memory:' });
    stores.push(store);
    const config = configFor(pruned.url);
    const runtime = createIngestRuntime(common, config);
    const line = `RPC ${pruned.url} serves no state at block 1: vaultd needs an archive node for history; set \`chains[].history_from\` to skip older hours`;
    for (let i = 0; i < 3; i++) {
      const [r] = await ingestOnce(common, store, config, { runtime });
      expect(r!.status).toBe('stalled');
      expect(r!.error).toBe(line);
    }
    expect(lines.filter((l) => l.msg === line)).toHaveLength(1);
    expect(lines.find((l) => l.msg === line)!.level).toBe('error');
    // nothing was read below the kept state but the one probe a round
    expect(pruned.calls.eth_getLogs ?? 0).toBe(0);
  });

  it.each([
    ['a block', () => keepFrom],
    ['an ISO instant', () => new Date((sc.manifest.startTime + (keepFrom - sc.manifest.startBlock) * 3600) * 1000).toISOString()],
  ])('history_from as %s: indexed from there, the same rows as an archive ingest from there on', async (_, from) => {
    const { common, lines } = recordingCommon();
    const store = await createStore(common, { path: ':memory:' });
    stores.push(store);
    const [r] = await ingestOnce(common, store, configFor(pruned.url, from()));
    expect(r!.status, r!.error).toBe('ok');
    expect(lines.some((l) => l.msg.includes('serves no state'))).toBe(false);
    const got = await snapshots(store, 0);
    expect(got.length).toBeGreaterThan(0);
    expect(Math.min(...got.map((s) => Number(s.block_number)))).toBeGreaterThanOrEqual(keepFrom);
    // the first hour kept is the first boundary at or after block keepFrom: every later row equals the archive's
    const firstTs = Math.min(...got.map((s) => Number(s.ts)));
    expect(got).toEqual((await snapshots(full, 0)).filter((s) => Number(s.ts) >= firstTs));
    // every event from there on, but those that settle a Provisioner request made before it
    // (its amount is in the request's log, which was not read): skipped and counted as bad data
    const a = await events(store, 0);
    const b = await events(full, keepFrom);
    const key = (e: Record<string, unknown>) => `${e.block_number}:${e.log_index}:${e.sub_index}`;
    const kept = new Set(a.map(key));
    expect(b.filter((e) => kept.has(key(e)))).toEqual(a);
    expect(b.length - a.length).toBe(r!.bad_data);
    expect(b.filter((e) => !kept.has(key(e))).every((e) => /refund|solve|cancel/.test(String(e.kind)))).toBe(true);
  });
});

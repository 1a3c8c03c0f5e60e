// Crash safety (DESIGN §9): `vaultd ingest --once` (chain ingest, then the Chainlink prices) in a
// child process, killed with SIGKILL at random points (inside a range's transaction, mid-range,
// inside the price feeds' scan, during start-up) at least ten times and restarted each time;
// the final tables are identical to an uninterrupted run's.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { BIN, vaultd } from '../../test/helpers/cli.js';
import { PROJECT_ROOT } from '../../common/version.js';
import { RAW_AND_REGISTRY_TABLES } from '../../store/publishInputs.js';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { createStore } from '../../store/store.js';
import { createRng } from '../demo/prng.js';
import { createPriceRuntime, runPriceRound } from '../prices/priceJob.js';
import { ingestOnce } from './ingestOnce.js';
import { startFaultyRpcProxy, type FaultyRpcProxy } from '../../test/helpers/chain/faultyRpcProxy.js';
import { scenarioConfig, scenarioConfigInput, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';

let sc: Scenario;
let proxy: FaultyRpcProxy;
const dir = tempDir('vaultd-chain-crash-');
const TABLES = [...RAW_AND_REGISTRY_TABLES, 'chain_requests', 'block_hashes'];

beforeAll(async () => {
  // the compiled CLI is what operators run (npm test builds it first)
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'cli', 'commands', 'ingest.js'))) vaultd(['--version']);
  sc = await startScenario({ chainId: 4646, days: 7, seed: 19, wallets: 12 });
  // small spans (a provider limit) make many ranges, so kills land between and inside commits
  proxy = await startFaultyRpcProxy(sc.devnet.rpcUrl, { maxLogRange: 4, rangeStyles: ['maxRange'] });
});

afterAll(async () => {
  await proxy?.close();
  await sc?.devnet.stop();
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  ranges: number;
  stderr: string;
}

/** A committed unit of work: a chain range, or a price feed's range. */
const PROGRESS = /"msg":"(?:range committed|feed range committed)"/g;

/**
 * Runs the CLI and kills it (SIGKILL) `delayMs` after its `afterProgress`-th committed chain or
 * feed range (with `inCommit`, `delayMs` after the next "committing range" or feed commit
 * instead, so the kill lands inside a transaction), or with neither, `delayMs` after spawn.
 */
function runIngest(args: string[], kill: { afterProgress?: number; delayMs: number; inCommit?: boolean } | null): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, VAULTD_LOG_LEVEL: 'debug' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let ranges = 0;
    let armed = true;
    const killNow = (ms: number) => {
      if (!armed) return;
      armed = false;
      setTimeout(() => child.kill('SIGKILL'), ms);
    };
    if (kill && kill.afterProgress === undefined) killNow(kill.delayMs);
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      stderr += text;
      const n = text.match(PROGRESS)?.length ?? 0;
      ranges += n;
      if (!kill || kill.afterProgress === undefined || ranges < kill.afterProgress) return;
      if (!kill.inCommit) killNow(kill.delayMs);
      // "committing range" is logged just before a chain range's transaction
      else if (ranges - n >= kill.afterProgress || /"msg":"(?:committing range|feed range committed)"/.test(text)) killNow(kill.delayMs);
    });
    child.stdout.resume();
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, ranges, stderr }));
  });
}

describe('kill -9 during ingest', () => {
  it('at least ten kills at random points, restarts, and the end state equals an uninterrupted run', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify(scenarioConfigInput(sc.manifest, { rpcUrls: [proxy.url] })));
    const db = join(dir, 'crashed.duckdb');
    const args = ['ingest', '--once', '--config', config, '--db', db];
    const rng = createRng(23, 'crash-test');
    let kills = 0;
    let done: Run | null = null;
    for (let attempt = 0; attempt < 40 && done === null; attempt++) {
      // most kills shortly after a committed chain or feed range (inside the next one or its
      // transaction), some at a random moment (start-up, registry sync, the first range); after
      // twelve, one clean run
      const p = rng.float();
      const kill =
        kills >= 12
          ? null
          : p < 0.4
            ? { afterProgress: 1, delayMs: rng.int(0, 12), inCommit: true }
            : p < 0.8
              ? { afterProgress: rng.int(1, 3), delayMs: rng.int(0, 80) }
              : { delayMs: rng.int(100, 1500) };
      const run = await runIngest(args, kill);
      if (run.signal === 'SIGKILL') {
        kills++;
        continue;
      }
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      done = run;
    }
    expect(kills).toBeGreaterThanOrEqual(10);
    expect(done).not.toBeNull();

    const reference = await createStore(testCommon(), { path: join(dir, 'reference.duckdb') });
    try {
      const referenceConfig = scenarioConfig(sc.manifest, { rpcUrls: [proxy.url] });
      const [r] = await ingestOnce(testCommon(), reference, referenceConfig);
      expect(r!.status).toBe('ok');
      const priced = await runPriceRound(testCommon(), reference, createPriceRuntime(testCommon(), referenceConfig));
      expect(priced.providers.map((x) => x.status)).toEqual(['ok']);
      const crashed = await createStore(testCommon(), { path: db });
      try {
        expect(await tableHashes(crashed, TABLES)).toEqual(await tableHashes(reference, TABLES));
        const events = await crashed.one<{ n: bigint }>('test.n', 'SELECT count(*) AS n FROM vault_events');
        expect(Number(events!.n)).toBeGreaterThan(100);
        expect(priced.rows).toBeGreaterThan(100);
        expect((await tableHashes(crashed, ['prices'])).prices!.rows).toBe(priced.rows);
      } finally {
        await crashed.close();
      }
    } finally {
      await reference.close();
    }
    // a dozen CLI starts and a reference ingest: the time a loaded 2-core machine needs, not a quiet one's
  }, 300_000);
});

describe('vaultd ingest (CLI)', () => {
  it('error: a config with no vault is a usage error, exit 2, one line', () => {
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, JSON.stringify({ chains: [] }));
    const r = vaultd(['ingest', '--once', '--config', empty, '--db', join(dir, 'never.duckdb')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      'vaultd ingest: the configuration lists nothing to ingest; pass --config FILE with "chains" and "registry.vaults" (and/or "prices.providers", "tvl_sources")',
    );
    expect(existsSync(join(dir, 'never.duckdb'))).toBe(false);
  });

  it('without --once: rounds on schedules.ingest, one summary line per chain and round, exit 0 on SIGTERM', async () => {
    const config = join(dir, 'scheduled.json');
    writeFileSync(config, JSON.stringify({ ...scenarioConfigInput(sc.manifest), schedules: { ingest: '* * * * * *' } }));
    const child = spawn(process.execPath, [BIN, 'ingest', '--config', config, '--db', join(dir, 'scheduled.duckdb')], {
      env: { ...process.env, VAULTD_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.split('\n').filter((l) => l.startsWith('chain ')).length >= 2) resolve();
      });
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('chain '));
    expect(stdout).toMatch(/^prices chainlink:4646: \d+ rows for 3 tokens — ok$/m);
    expect(lines[0]).toMatch(/^chain 4646 \(devnet\): blocks 1\.\.\d+ of \d+, \d+ logs, \d+ events, \d+ snapshots in [\d.]+ s — ok$/);
    // what was due and why nothing was: every vault is at the target the head and finality give
    const due =
      /^chain 4646 \(devnet\): nothing due \(every vault is indexed to block (\d+); head (\d+) − (\d+) finality blocks = (\d+)\), 0 logs, 0 events, 0 snapshots in [\d.]+ s — ok$/.exec(
        lines[1]!,
      );
    expect(due, lines[1]).not.toBeNull();
    const [indexed, head, finality, target] = due!.slice(1).map(Number) as [number, number, number, number];
    expect(head - finality).toBe(target);
    expect(indexed).toBeGreaterThanOrEqual(target);
  });
});

// `vaultd devnet [--db PATH] [--port N] [--config FILE] [--write-config FILE]` (DESIGN §2, §6.2):
// start a local EVM chain in-process (Hardhat over HTTP JSON-RPC), deploy our vault contracts,
// simulate months of hourly activity, ingest it through the same indexer that would point at a
// public RPC, and serve the API. The run's configuration is the given one (--config or
// VAULTD_CONFIG: server, auth, limits, schedules) with the devnet's chains, registry and prices.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { loadConfig, readConfigFile } from '../../common/config.js';
import { ensureDir } from '../../common/ensureDir.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createLogger } from '../../common/logger.js';
import { createProgress } from '../../common/progress.js';
import { parseFlags } from '../args.js';
import { DEVNET, DEVNET_DB } from '../commandSpecs.js';
import { assertListenable } from '../../server/httpServer.js';
import { runServer } from './serve.js';

const DAYS = 30;

export async function devnetCommand(argv: string[]): Promise<number> {
  const { values, int } = parseFlags(DEVNET, argv);
  const port = int('port');
  const db = values.db ?? (process.env.VAULTD_DB || DEVNET_DB);
  // The operator's configuration, checked now (a bad file is one line before minutes of
  // simulation); its chains, registry and prices give way to the devnet's, its db to --db.
  const given = values.config ?? (process.env.VAULTD_CONFIG || undefined);
  const { server } = loadConfig(VAULT_TYPES, { config: given, port });
  const base = given === undefined ? {} : (readConfigFile(given) as Record<string, unknown>);
  // A taken port is said now, not after minutes of simulation (and before the database is deleted).
  await assertListenable(server.host, server.port);
  const logger = createLogger(process.env.VAULTD_LOG_LEVEL || 'info');
  // devnet/ is a development rig beside the product, not part of it: reached only from here, on demand
  const { devnetConfig, genesisEndingAt, simulateDevnet, startDevnet } = await import('../../devnet/index.js');
  // A devnet is a new chain each run: its database starts empty too.
  for (const f of [db, `${db}.wal`]) rmSync(f, { force: true });

  const devnet = await startDevnet({ startTime: genesisEndingAt(Date.now() / 1000, DAYS) });
  // the config written for this run (printed, for `vaultd ingest --config`) lives as long as the
  // devnet, unless --write-config names a file to keep it in
  const keep = values['write-config'] !== undefined;
  const file = keep ? resolve(values['write-config']!) : join(tmpdir(), `vaultd-devnet-${process.pid}.json`);
  const remove = () => {
    if (!keep) rmSync(file, { force: true });
  };
  try {
    const progress = createProgress(logger, 'devnet');
    const manifest = await simulateDevnet(devnet, { days: DAYS, onProgress: (h, n) => progress.update(h, n) });
    progress.stop();
    logger.info({ rpc_url: devnet.rpcUrl, vaults: manifest.vaults.length, wallets: manifest.wallets.length }, 'devnet simulated');
    if (keep) ensureDir(dirname(file));
    const { $schema: _, chains: _c, registry: _r, prices: _p, db: _db, ...rest } = base;
    writeFileSync(file, JSON.stringify({ ...rest, ...devnetConfig(manifest), db }, null, 2));
    // however the process ends: a stop whose shutdown outlasts its grace (a loaded machine) exits
    // before the devnet's own step runs
    process.once('exit', remove);
    const config = loadConfig(VAULT_TYPES, { config: file, db, port });
    process.stdout.write(`devnet: chain ${manifest.chainId} at ${devnet.rpcUrl}; config ${file}; wallets e.g. ${manifest.wallets[0]}\n`);
    return await runServer(config, {
      jobs: true,
      // a stop signal exits from the shutdown, before this function returns: clean up there too
      onStop: async () => {
        await devnet.stop();
        remove();
      },
    });
  } catch (err) {
    await devnet.stop();
    throw err;
  } finally {
    remove();
  }
}

// `vaultd devnet [--db PATH] [--port N]` (DESIGN §2, §6.2): start a local EVM chain in-process
// (Hardhat over HTTP JSON-RPC), deploy our vault contracts, simulate months of hourly activity,
// ingest it through the same indexer that would point at a public RPC, and serve the API.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../common/config.js';
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
  // A taken port is said now, not after minutes of simulation (and before the database is
  // deleted). The run's config file sets no address: it is the flag's, the environment's or the default.
  const { server } = loadConfig(VAULT_TYPES, { port }, { ...process.env, VAULTD_CONFIG: '' });
  await assertListenable(server.host, server.port);
  const logger = createLogger(process.env.VAULTD_LOG_LEVEL || 'info');
  // devnet/ is a development rig beside the product, not part of it: reached only from here, on demand
  const { devnetConfig, genesisEndingAt, simulateDevnet, startDevnet } = await import('../../devnet/index.js');
  // A devnet is a new chain each run: its database starts empty too.
  for (const f of [db, `${db}.wal`]) rmSync(f, { force: true });

  const devnet = await startDevnet({ startTime: genesisEndingAt(Date.now() / 1000, DAYS) });
  // the config written for this run (printed, for `vaultd ingest --config`) lives as long as the devnet
  const file = join(tmpdir(), `vaultd-devnet-${process.pid}.json`);
  try {
    const progress = createProgress(logger, 'devnet');
    const manifest = await simulateDevnet(devnet, { days: DAYS, onProgress: (h, n) => progress.update(h, n) });
    progress.stop();
    logger.info({ rpc_url: devnet.rpcUrl, vaults: manifest.vaults.length, wallets: manifest.wallets.length }, 'devnet simulated');
    writeFileSync(file, JSON.stringify({ ...devnetConfig(manifest), db }, null, 2));
    // however the process ends: a stop whose shutdown outlasts its grace (a loaded machine) exits
    // before the devnet's own step runs
    process.once('exit', () => rmSync(file, { force: true }));
    const config = loadConfig(VAULT_TYPES, { config: file, db, port });
    process.stdout.write(`devnet: chain ${manifest.chainId} at ${devnet.rpcUrl}; config ${file}; wallets e.g. ${manifest.wallets[0]}\n`);
    return await runServer(config, {
      jobs: true,
      // a stop signal exits from the shutdown, before this function returns: clean up there too
      onStop: async () => {
        await devnet.stop();
        rmSync(file, { force: true });
      },
    });
  } catch (err) {
    await devnet.stop();
    throw err;
  } finally {
    rmSync(file, { force: true });
  }
}

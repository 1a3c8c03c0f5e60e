// `vaultd serve`: serve the API from the database; on an empty database with no configured
// registry, first create the demo world (the embedded default of `npm start`).
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { createProgress } from '../../common/progress.js';
import { createDemoWorld, databaseHasData } from '../../jobs/demo/createDemoWorld.js';
import { startHttpServer } from '../../server/httpServer.js';
import { intFlag, parseFlags } from '../args.js';
import { demoParams } from './demo.js';

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags('serve', argv, {
    db: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    config: { type: 'string' },
    'no-jobs': { type: 'boolean' },
  });
  const config = loadConfig({
    config: values.config,
    db: values.db,
    host: values.host,
    port: intFlag('port', values.port, 0, 65535),
  });
  const common = createCommon(config, { defaultMetrics: true });
  const { logger } = common;

  if (config.registry.vaults.length === 0 && !(await databaseHasData(common, config.db))) {
    logger.info({ db: config.db }, 'empty database: creating the demo world');
    const summary = await createDemoWorld(common, {
      path: config.db,
      params: demoParams({}),
      force: false,
      progress: createProgress(common.logger, 'demo'),
    });
    logger.info(summary, 'demo world created');
  }

  const server = await startHttpServer(common, { host: config.server.host, port: config.server.port });
  common.shutdown.add('http', () => server.close());

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      void common.shutdown.close(signal).then(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}

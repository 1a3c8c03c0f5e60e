// The bundle passed to every factory: configuration, logger, metrics and shutdown.
import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createShutdown, type Shutdown } from './shutdown.js';
import { trackShutdown } from './signals.js';

export interface Common {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly shutdown: Shutdown;
}

export function createCommon(config: Config, opts: { logger?: Logger; defaultMetrics?: boolean } = {}): Common {
  const logger = opts.logger ?? createLogger(config.log_level);
  const shutdown = createShutdown(logger);
  trackShutdown(shutdown);
  return { config, logger, metrics: createMetrics({ defaults: opts.defaultMetrics ?? false }), shutdown };
}

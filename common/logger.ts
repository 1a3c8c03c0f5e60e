// JSON-lines logging (pino) to stderr, so stdout stays clean for command output
// (`vaultd wallets`, `keys create`). Secrets are redacted by key name.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino(
    {
      level,
      base: { service: 'vaultd', ...bindings },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['secret', '*.secret', 'authorization', '*.authorization', 'api_key', '*.api_key'], censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}

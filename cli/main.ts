// `vaultd` command-line entry (DESIGN §2): dispatches to one module per command and turns
// every error into one clear line on stderr with a stable exit code (2 = bad input).
import { VaultdError, describeError } from '../common/errors.js';
import { installStopSignals, stopRequested } from '../common/signals.js';
import { buildCommit, VERSION } from '../common/version.js';

const USAGE = `vaultd ${VERSION} — curated yield vault engine and read-only HTTP API

Usage:
  vaultd demo [--db PATH] [--seed N] [--now ISO] [--vaults N] [--wallets N] [--days N] [--force]
  vaultd serve [--db PATH] [--port N] [--host H] [--config FILE] [--no-jobs] [--publish-dir DIR] | serve --snapshot DIR [--port N] [--host H] [--config FILE]
  vaultd publish --out DIR [--db PATH] [--config FILE]
  vaultd recompute [--db PATH] [--full]
  vaultd ingest [--config FILE] [--once] [--db PATH]
  vaultd devnet [--db PATH] [--port N]
  vaultd keys create NAME [--db PATH] | keys list [--db PATH] | keys revoke ID [--db PATH]
  vaultd wallets [--db PATH] [--limit N]

Environment: VAULTD_DB, VAULTD_PORT, VAULTD_HOST, VAULTD_CONFIG, VAULTD_LOG_LEVEL.`;

/** One command's usage: its lines of the summary above. */
function usageOf(name: string): string {
  const lines = USAGE.split('\n').filter((l) => l.startsWith(`  vaultd ${name} `) || l === `  vaultd ${name}`);
  return `Usage:\n${lines.join('\n')}\n\n${USAGE.split('\n').at(-1)}`;
}

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  keys: async () => (await import('./commands/keys.js')).keysCommand,
  wallets: async () => (await import('./commands/wallets.js')).walletsCommand,
  recompute: async () => (await import('./commands/recompute.js')).recomputeCommand,
  publish: async () => (await import('./commands/publish.js')).publishCommand,
  ingest: async () => (await import('./commands/ingest.js')).ingestCommand,
  devnet: async () => (await import('./commands/devnet.js')).devnetCommand,
};

export async function main(argv: string[]): Promise<number> {
  const code = await run(argv);
  // The entry points end with process.exit(), which drops what a pipe has not taken yet: a
  // long listing piped into a slow reader was cut at the pipe's 64 KiB. Wait until it is taken.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  return code;
}

/** Resolves once everything written to `stream` so far has been handed to the OS (or the stream failed). */
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => (stream.destroyed ? resolve() : stream.write('', () => resolve())));

async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest[0] !== undefined && rest[0] in COMMANDS) {
    process.stdout.write(`${usageOf(rest[0])}\n`);
    return 0;
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === 'version') {
    process.stdout.write(`${VERSION} (commit ${buildCommit()})\n`);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`vaultd: unknown command "${name}"; see \`vaultd help\`\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${usageOf(name)}\n`);
    return 0;
  }
  installStopSignals((code) => process.exit(code));
  try {
    return await (await load())(rest);
  } catch (err) {
    // a stop signal cut the work short: that is a clean stop, not a failure
    if (stopRequested() !== null) return 0;
    const code = err instanceof VaultdError ? err.exitCode : 1;
    // messages that already name their (sub)command get one prefix, not `vaultd serve: serve: …`
    const text = describeError(err);
    process.stderr.write(text.startsWith(`${name}:`) || text.startsWith(`${name} `) ? `vaultd ${text}\n` : `vaultd ${name}: ${text}\n`);
    if (!(err instanceof VaultdError) && process.env.VAULTD_LOG_LEVEL === 'debug') console.error(err);
    return code;
  }
}

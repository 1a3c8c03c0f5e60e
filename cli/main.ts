// `vaultd` command-line entry (DESIGN §2): dispatches to one module per command and turns
// every error into one clear line on stderr with a stable exit code (2 = bad input).
import { VaultdError, describeError } from '../common/errors.js';
import { installStopSignals, stopRequested } from '../common/signals.js';
import { closest } from '../common/config.js';
import { buildCommit, VERSION } from '../common/version.js';
import type { AnyCommandSpec } from './commandSpec.js';
import { COMMAND_SPECS, type CommandName } from './commandSpecs.js';
import { commandHelp, overallHelp } from './help.js';

type Command = (argv: string[]) => Promise<number>;

/** Each command's module, loaded only when it runs (the help needs none of them). */
const COMMANDS: Record<CommandName, () => Promise<Command>> = {
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  keys: async () => (await import('./commands/keys.js')).keysCommand,
  wallets: async () => (await import('./commands/wallets.js')).walletsCommand,
  recompute: async () => (await import('./commands/recompute.js')).recomputeCommand,
  publish: async () => (await import('./commands/publish.js')).publishCommand,
  ingest: async () => (await import('./commands/ingest.js')).ingestCommand,
  devnet: async () => (await import('./commands/devnet.js')).devnetCommand,
  chains: async () => (await import('./commands/chains.js')).chainsCommand,
  backup: async () => (await import('./commands/backup.js')).backupCommand,
  config: async () => (await import('./commands/config.js')).configCommand,
  export: async () => (await import('./commands/export.js')).exportCommand,
  snapshot: async () => (await import('./commands/snapshot.js')).snapshotCommand,
};

const specOf = (name: string | undefined): AnyCommandSpec | undefined => COMMAND_SPECS.find((c) => c.name === name);

/** `vaultd: unknown command "serv"; did you mean "serve"? …` */
function unknownCommand(name: string): string {
  const near = closest(name, [...COMMAND_SPECS.map((c) => c.name), 'help', '--help', 'version', '--version']);
  return `vaultd: unknown command "${name}"${near ? `; did you mean "${near}"? see` : '; see'} \`vaultd help\`\n`;
}

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
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const about = name === 'help' ? rest[0] : undefined;
    if (about !== undefined) {
      const spec = specOf(about);
      if (!spec) {
        process.stderr.write(unknownCommand(about));
        return 2;
      }
      process.stdout.write(`${commandHelp(spec)}\n`);
      return 0;
    }
    process.stdout.write(`${overallHelp()}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === 'version') {
    process.stdout.write(`${VERSION} (commit ${buildCommit()})\n`);
    return 0;
  }
  const spec = specOf(name);
  if (!spec) {
    process.stderr.write(unknownCommand(name));
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${commandHelp(spec)}\n`);
    return 0;
  }
  const load = COMMANDS[spec.name as CommandName];
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

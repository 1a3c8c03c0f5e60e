// Flag parsing for every command (node:util parseArgs, strict), from the command's description
// (commandSpecs.ts): an unknown flag or a bad value becomes a USAGE error (exit 2) that names
// the flag, and a mistyped flag gets the nearest one suggested.
import { parseArgs } from 'node:util';
import { closest } from '../common/config.js';
import { VaultdError } from '../common/errors.js';
import type { CommandSpec, FlagSpecs, FlagValues } from './commandSpec.js';

type ParseOptions = Record<string, { type: 'string' | 'boolean' }>;

export interface ParsedFlags<F extends FlagSpecs> {
  values: FlagValues<F>;
  positionals: string[];
  /** An integer flag's value, checked against the range its description gives (undefined when absent). */
  int(name: keyof F & string): number | undefined;
}

/**
 * Parse `argv` against the command's flags. `positionals` is how many words it takes; `as`
 * names it in messages when that is not its name (`keys create`).
 */
export function parseFlags<F extends FlagSpecs>(
  spec: Pick<CommandSpec<F>, 'name' | 'flags'>,
  argv: string[],
  opts: { positionals?: number; as?: string } = {},
): ParsedFlags<F> {
  const command = opts.as ?? spec.name;
  const positionals = opts.positionals ?? 0;
  const options: ParseOptions = {};
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = { type: flag.type };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: withNegativeValues(argv, options), options, strict: true, allowPositionals: positionals > 0 });
  } catch (err) {
    const message = (err as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '');
    const near = (err as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? nearestFlag(message, Object.keys(spec.flags)) : undefined;
    if (near) {
      throw new VaultdError('USAGE', `${command}: unknown option "${near.typed}"; did you mean "${near.flag}"? see \`vaultd ${spec.name} --help\``);
    }
    throw new VaultdError('USAGE', `${command}: ${message}; see \`vaultd help\``);
  }
  if (parsed.positionals.length > positionals) {
    throw new VaultdError('USAGE', `${command}: unexpected argument "${parsed.positionals[positionals]}"; see \`vaultd help\``);
  }
  return {
    values: parsed.values as FlagValues<F>,
    positionals: parsed.positionals,
    int(name) {
      const range = spec.flags[name]?.int;
      if (!range) throw new Error(`--${name} of "${spec.name}" is not an integer flag`);
      return intFlag(name, parsed.values[name] as string | undefined, range[0], range[1]);
    },
  };
}

/** The flag nearest to the unknown long option parseArgs named (`--prot` → `--port`); none for short ones. */
function nearestFlag(message: string, flags: string[]): { typed: string; flag: string } | undefined {
  const typed = /^Unknown option '(--[^'=]+)'/.exec(message)?.[1];
  // one letter is too little to guess from (`--n` is not `--db`)
  if (typed === undefined || typed.length < 4) return undefined;
  const near = closest(typed.slice(2), [...flags, 'help']);
  return near === undefined ? undefined : { typed, flag: `--${near}` };
}

/**
 * `--days -5` reads as a value, so the flag's own check can reject it by name (parseArgs
 * would call it "ambiguous" and suggest `--days=-XYZ`).
 */
function withNegativeValues(argv: string[], options: ParseOptions): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = /^--([\w-]+)$/.exec(argv[i]!)?.[1];
    const next = argv[i + 1];
    if (flag && options[flag]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`--${flag}=${next}`);
      i++;
    } else out.push(argv[i]!);
  }
  return out;
}

export function intFlag(name: string, raw: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new VaultdError('USAGE', `invalid --${name} "${raw}": expected an integer from ${min} to ${max}`);
  }
  return Number(raw);
}

/** An ISO 8601 instant (date, or date-time; no zone means UTC) as Unix seconds. */
export function timeFlag(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:\d{2})?)?$/.exec(raw);
  const ms = m ? Date.parse(`${m[1]}T${m[2] ?? '00:00:00'}${m[3] ?? 'Z'}`) : NaN;
  if (!Number.isFinite(ms)) {
    throw new VaultdError('USAGE', `invalid --${name} "${raw}": expected an ISO 8601 date or date-time, e.g. 2026-01-31T12:00:00Z`);
  }
  return Math.floor(ms / 1000);
}

// Flag parsing for every command (node:util parseArgs, strict): an unknown flag or a bad
// value becomes a USAGE error (exit 2) that names the flag.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { VaultdError } from '../common/errors.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<O extends Options>(command: string, argv: string[], options: O, positionals = 0) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>>;
  try {
    parsed = parseArgs({ args: withNegativeValues(argv, options), options, strict: true, allowPositionals: positionals > 0 });
  } catch (err) {
    const message = (err as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '');
    throw new VaultdError('USAGE', `${command}: ${message}; see \`vaultd help\``);
  }
  if (parsed.positionals.length > positionals) {
    throw new VaultdError('USAGE', `${command}: unexpected argument "${parsed.positionals[positionals]}"; see \`vaultd help\``);
  }
  return parsed;
}

/**
 * `--days -5` reads as a value, so the flag's own check can reject it by name (parseArgs
 * would call it "ambiguous" and suggest `--days=-XYZ`).
 */
function withNegativeValues(argv: string[], options: Options): string[] {
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

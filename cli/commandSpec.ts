// The shape of one command's description (cli/commandSpecs.ts): the parser (args.ts) takes its
// flags from it and the help (help.ts) is written from it, so the two cannot disagree.

export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  /** the value's placeholder in usage lines (string flags): PATH, N, ISO, … */
  readonly value?: string;
  /** what the flag does: one sentence, lower case, no final stop */
  readonly does: string;
  /** the value's format, when the placeholder does not say it all (integer flags say theirs from `int`) */
  readonly format?: string;
  /** the value used when the flag is absent, as shown in the help */
  readonly default?: string;
  /** an integer flag's inclusive range: the help shows it and `int()` (args.ts) enforces it */
  readonly int?: readonly [min: number, max: number];
  /** the environment variable that stands in for the flag */
  readonly env?: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** One way to call the command, for its usage line: leading words, then required and optional flags. */
export interface UsageForm<F extends FlagSpecs> {
  /** words before the flags, e.g. `create NAME` */
  readonly args?: string;
  /** flags this form needs (shown without brackets, first) */
  readonly required?: readonly (keyof F & string)[];
  /** optional flags, in order */
  readonly flags: readonly (keyof F & string)[];
}

export interface CommandSpec<F extends FlagSpecs = FlagSpecs, N extends string = string> {
  readonly name: N;
  /** one line for the command list of `vaultd help` */
  readonly summary: string;
  /** what it does, for `vaultd <command> --help` (plain sentences; wrapped when printed) */
  readonly description: string;
  readonly flags: F;
  /** the ways to call it; by default one form with every flag, optional, in order */
  readonly forms?: readonly UsageForm<F>[];
  /** positional words, for the help's Arguments section */
  readonly positionals?: readonly { readonly name: string; readonly does: string }[];
  /** command lines (without the leading `vaultd`) and what each does */
  readonly examples: readonly { readonly run: string; readonly does: string }[];
}

/** Keeps the name and each flag's `type` literal, so parsed values are typed per flag. */
export function defineCommand<const N extends string, const F extends FlagSpecs>(spec: CommandSpec<F, N>): CommandSpec<F, N> {
  return spec;
}

/** The parsed values of a command's flags: strings, or booleans for boolean flags. */
export type FlagValues<F extends FlagSpecs> = { -readonly [K in keyof F]?: F[K]['type'] extends 'boolean' ? boolean : string };

/**
 * Any command's description, its flag names read as plain strings: what the help and the
 * dispatch take (a CommandSpec<F> is one; CommandSpec<FlagSpecs> is not a supertype of it, as
 * `keyof F` makes F invariant).
 */
export interface AnyCommandSpec extends Omit<CommandSpec, 'forms'> {
  readonly forms?: readonly { readonly args?: string; readonly required?: readonly string[]; readonly flags: readonly string[] }[];
}

/** The forms of a command: its own, or one with every flag. */
export function formsOf(spec: AnyCommandSpec): NonNullable<AnyCommandSpec['forms']> {
  return spec.forms ?? [{ flags: Object.keys(spec.flags) }];
}

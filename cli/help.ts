// The help texts, written from the commands' descriptions (commandSpecs.ts): `vaultd help` lists
// every command's usage line and summary; `vaultd <command> --help` adds what it does, every flag
// with its format and default, and examples.
import { VERSION } from '../common/version.js';
import { formsOf, type AnyCommandSpec, type FlagSpec } from './commandSpec.js';
import { COMMAND_SPECS } from './commandSpecs.js';

const ENVIRONMENT = 'Environment: VAULTD_DB, VAULTD_PORT, VAULTD_HOST, VAULTD_CONFIG, VAULTD_LOG_LEVEL.';
const WIDTH = 90;
/** where a flag's text starts: `  --publish-dir DIR  ` */
const COLUMN = 22;

/** A flag as written in a usage line: `--port N`, `--force`. */
function flagSyntax(name: string, flag: FlagSpec): string {
  return flag.type === 'boolean' ? `--${name}` : `--${name} ${flag.value ?? 'VALUE'}`;
}

/** The command's usage line, without the indent: `vaultd serve [--db PATH] … | serve --snapshot DIR …`. */
export function usageLine(spec: AnyCommandSpec): string {
  const forms = formsOf(spec).map((form) =>
    [
      form.args,
      ...(form.required ?? []).map((name) => flagSyntax(name, spec.flags[name]!)),
      ...form.flags.map((name) => `[${flagSyntax(name, spec.flags[name]!)}]`),
    ]
      .filter((part) => part !== undefined)
      .join(' '),
  );
  return `vaultd ${spec.name} ${forms.join(` | ${spec.name} `)}`.trimEnd();
}

/** `vaultd help`: every command's usage line and summary. */
export function overallHelp(): string {
  const pad = Math.max(...COMMAND_SPECS.map((c) => c.name.length)) + 3;
  return [
    `vaultd ${VERSION} — curated yield vault engine and read-only HTTP API`,
    '',
    'Usage:',
    ...COMMAND_SPECS.map((c) => `  ${usageLine(c)}`),
    '',
    'Commands:',
    ...COMMAND_SPECS.map((c) => `  ${c.name.padEnd(pad)}${c.summary}`),
    '',
    "`vaultd help COMMAND` or `vaultd COMMAND --help`: that command's flags with their formats and defaults, and examples.",
    '`vaultd --version`: the version and the build commit.',
    '',
    ENVIRONMENT,
  ].join('\n');
}

/** `vaultd <command> --help`. */
export function commandHelp(spec: AnyCommandSpec): string {
  const lines = ['Usage:', `  ${usageLine(spec)}`, '', ...wrap(spec.description, WIDTH), ''];
  if (spec.positionals?.length) {
    lines.push('Arguments:');
    for (const p of spec.positionals) lines.push(...item(p.name, [p.does]));
    lines.push('');
  }
  lines.push('Options:');
  for (const [name, flag] of Object.entries(spec.flags)) lines.push(...item(flagSyntax(name, flag), flagText(flag)));
  lines.push(...item('-h, --help', ['print this help']));
  if (Object.values(spec.flags).some((f) => f.env)) lines.push('', '  A flag beats its environment variable, which beats the config file.');
  lines.push('', 'Examples:');
  for (const e of spec.examples) lines.push(`  $ vaultd ${e.run}`, ...wrap(e.does, WIDTH - 6).map((l) => `      ${l}`));
  lines.push('', ENVIRONMENT);
  return lines.join('\n');
}

/** A flag's lines: what it does, its format, its default (booleans: off) and its variable. */
function flagText(flag: FlagSpec): string[] {
  const format = flag.int ? intFormat(flag.int) : flag.format;
  const fallback = flag.default ?? (flag.type === 'boolean' ? 'off' : 'none');
  return [flag.does, ...(format ? [`format: ${format}`] : []), `default: ${fallback}${flag.env ? `; env ${flag.env}` : ''}`];
}

function intFormat([min, max]: readonly [number, number]): string {
  return max === Number.MAX_SAFE_INTEGER ? `an integer, at least ${min}` : `an integer from ${min} to ${max}`;
}

/** `  term   text` with the text wrapped at WIDTH and continued under its column. */
function item(term: string, paragraphs: string[]): string[] {
  const head = `  ${term}`;
  const text = paragraphs.flatMap((p) => wrap(p, WIDTH - COLUMN));
  const first = head.length < COLUMN ? `${head.padEnd(COLUMN)}${text[0] ?? ''}` : head;
  const rest = head.length < COLUMN ? text.slice(1) : text;
  return [first.trimEnd(), ...rest.map((l) => `${' '.repeat(COLUMN)}${l}`)];
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

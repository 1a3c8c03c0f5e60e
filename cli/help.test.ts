// The help is written from the same descriptions the parser reads: these hold the two together
// for every command, whatever the table holds.
import { describe, expect, it } from 'vitest';
import { VaultdError } from '../common/errors.js';
import { parseFlags } from './args.js';
import { formsOf, type AnyCommandSpec } from './commandSpec.js';
import { COMMAND_SPECS, CONFIG, KEYS, SERVE, SNAPSHOT, WALLETS } from './commandSpecs.js';
import { commandHelp, overallHelp, usageLine } from './help.js';
import { servingLine } from './servingLine.js';

/** Every command, read through the type any of them has. */
const commands = COMMAND_SPECS.map((c): [string, AnyCommandSpec] => [c.name, c]);

/** The Options section of a help text: each flag with the lines that describe it. */
function optionsOf(help: string): Map<string, string> {
  const section = help.split('\nOptions:\n')[1]!.split('\n\n')[0]!;
  const options = new Map<string, string>();
  let current = '';
  for (const line of section.split('\n')) {
    const m = /^ {2}(?:-\w, )?(--[\w-]+)/.exec(line);
    if (m) options.set((current = m[1]!), line);
    else options.set(current, `${options.get(current)}\n${line}`);
  }
  return options;
}

/** A value the flag accepts: the bottom of an integer's range, an ISO date, or any word. */
function validValue(name: string, flag: { type: string; int?: readonly [number, number] }): string[] {
  if (flag.type === 'boolean') return [`--${name}`];
  return [`--${name}`, flag.int ? String(flag.int[0]) : name === 'now' ? '2026-01-31' : 'x'];
}

/** An example's words, quotes honoured: `keys create "ci bot"` → ['keys', 'create', 'ci bot']. */
const words = (line: string) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

describe('command help', () => {
  it.each(commands)('%s: lists every flag the parser accepts, each with its default, and nothing else', (_, spec) => {
    const options = optionsOf(commandHelp(spec));
    expect([...options.keys()].sort()).toEqual([...Object.keys(spec.flags), 'help'].map((f) => `--${f}`).sort());
    for (const [flag, text] of options) if (flag !== '--help') expect(text, flag).toMatch(/\n {22}default: \S/);
    // the parser takes each flag the help names (and only those: anything else is refused)
    for (const [name, flag] of Object.entries(spec.flags)) {
      const parsed = parseFlags(spec, validValue(name, flag), { positionals: 1 });
      expect(parsed.values[name], name).toBeDefined();
      if (flag.int) expect(parsed.int(name)).toBe(flag.int[0]);
    }
    expect(() => parseFlags(spec, ['--not-a-flag-of-any-command'])).toThrow(VaultdError);
    // the usage line offers every flag in some form
    const usage = usageLine(spec);
    for (const name of Object.keys(spec.flags)) expect(usage, name).toContain(`--${name}`);
    for (const form of formsOf(spec)) for (const name of [...(form.required ?? []), ...form.flags]) expect(spec.flags).toHaveProperty([name]);
  });

  it.each(commands)('%s: every example is a command line its parser accepts', (_, spec) => {
    expect(spec.examples.length).toBeGreaterThan(0);
    for (const example of spec.examples) {
      const [name, ...rest] = words(example.run);
      expect(name).toBe(spec.name);
      // keys takes its action and its NAME or ID first, snapshot its action and DIR; config its action
      const oneWord = spec.name === KEYS.name || spec.name === SNAPSHOT.name;
      const action = oneWord || spec.name === CONFIG.name;
      const parsed = parseFlags(spec, action ? rest.slice(1) : rest, { positionals: oneWord ? 1 : 0 });
      for (const [flag, f] of Object.entries(spec.flags)) if (f.int) parsed.int(flag);
    }
  });

  it('usage lines keep their form: optional flags in brackets, a second form after `|`', () => {
    expect(usageLine(SERVE)).toBe(
      'vaultd serve [--db PATH] [--port N] [--host H] [--config FILE] [--no-jobs] [--publish-dir DIR] [--demo] | serve --snapshot DIR [--port N] [--host H] [--config FILE]',
    );
    expect(usageLine(KEYS)).toBe(
      'vaultd keys create NAME [--db PATH] [--config FILE] | keys list [--db PATH] [--config FILE] | keys revoke ID [--db PATH] [--config FILE]',
    );
    const overall = overallHelp();
    for (const c of COMMAND_SPECS) expect(overall).toContain(`\n  ${usageLine(c)}\n`);
    expect(commandHelp(WALLETS)).toContain('  --limit N           print at most N addresses\n                      format: an integer, at least 1\n');
  });

  it('error: a mistyped flag is answered with the nearest one; a far one or a one-letter one is named as before', () => {
    const fail = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(VaultdError);
        expect((err as VaultdError).exitCode).toBe(2);
        return (err as Error).message;
      }
      throw new Error('did not throw');
    };
    expect(fail(() => parseFlags(SERVE, ['--prot', '8080']))).toBe('serve: unknown option "--prot"; did you mean "--port"? see `vaultd serve --help`');
    expect(fail(() => parseFlags(SERVE, ['--no-job']))).toBe('serve: unknown option "--no-job"; did you mean "--no-jobs"? see `vaultd serve --help`');
    expect(fail(() => parseFlags(KEYS, ['--confg', 'x'], { as: 'keys list' }))).toBe(
      'keys list: unknown option "--confg"; did you mean "--config"? see `vaultd keys --help`',
    );
    expect(fail(() => parseFlags(SERVE, ['--bogus']))).toBe("serve: Unknown option '--bogus'; see `vaultd help`");
    expect(fail(() => parseFlags(WALLETS, ['--n', '3']))).toBe("wallets: Unknown option '--n'; see `vaultd help`");
    expect(fail(() => parseFlags(WALLETS, ['--limit', '0']).int('limit'))).toBe('invalid --limit "0": expected an integer from 1 to 9007199254740991');
  });

  it('the serving line names an address a browser can open', () => {
    expect(servingLine('0.0.0.0', 8080)).toBe('vaultd serving http://localhost:8080 — explorer at /, docs at /docs');
    expect(servingLine('::', 8080)).toBe('vaultd serving http://localhost:8080 — explorer at /, docs at /docs');
    expect(servingLine('127.0.0.1', 9090)).toBe('vaultd serving http://127.0.0.1:9090 — explorer at /, docs at /docs');
    expect(servingLine('::1', 9090)).toBe('vaultd serving http://[::1]:9090 — explorer at /, docs at /docs');
  });
});

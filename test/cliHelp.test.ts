// Developer habits of the CLI (issue #33), driven through the real bin: help for every command
// and "did you mean" for mistyped commands and flags.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../cli/commandSpecs.js';
import { tempDir } from './helpers/common.js';
import { vaultd } from './helpers/cli.js';

const dir = tempDir('vaultd-cli-help-');

/** The flags named at the start of the Options section's entries. */
const optionFlags = (help: string) => [...help.split('\nOptions:\n')[1]!.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!);

describe('vaultd help', () => {
  it.each(COMMAND_SPECS.map((c) => c.name))('%s: --help, -h and `help` print one text, exit 0, every flag with its default', (name) => {
    const spec = COMMAND_SPECS.find((c) => c.name === name)!;
    const help = vaultd([name, '--help']);
    expect(help.status).toBe(0);
    expect(help.stderr).toBe('');
    expect(vaultd([name, '-h']).stdout).toBe(help.stdout);
    expect(vaultd(['help', name]).stdout).toBe(help.stdout);
    expect(help.stdout).toMatch(new RegExp(`^Usage:\\n {2}vaultd ${name}[ \\n]`));
    expect(help.stdout.match(/^ {2}vaultd /gm)).toHaveLength(1);
    expect(optionFlags(help.stdout).sort()).toEqual([...Object.keys(spec.flags), 'help'].map((f) => `--${f}`).sort());
    // each flag's entry has a default line before the next entry starts
    expect(help.stdout.match(/^ {22}default: /gm)).toHaveLength(Object.keys(spec.flags).length);
    expect(help.stdout).toMatch(/\nExamples:\n {2}\$ vaultd /);
  });

  it('`vaultd help` lists every command; bare `vaultd` prints the same and exits 2', () => {
    const help = vaultd(['help']);
    expect(help.status).toBe(0);
    for (const c of COMMAND_SPECS) expect(help.stdout).toMatch(new RegExp(`^ {2}vaultd ${c.name} `, 'm'));
    expect(vaultd(['--help']).stdout).toBe(help.stdout);
    const bare = vaultd([]);
    expect(bare.status).toBe(2);
    expect(bare.stdout).toBe(help.stdout);
  });

  it('error: a mistyped command suggests the nearest one, exit 2; a far one is named as before', () => {
    const serv = vaultd(['serv']);
    expect(serv.status).toBe(2);
    expect(serv.stdout).toBe('');
    expect(serv.stderr).toBe('vaultd: unknown command "serv"; did you mean "serve"? see `vaultd help`\n');
    expect(vaultd(['help', 'recompte']).stderr).toBe('vaultd: unknown command "recompte"; did you mean "recompute"? see `vaultd help`\n');
    expect(vaultd(['--verison']).stderr).toBe('vaultd: unknown command "--verison"; did you mean "--version"? see `vaultd help`\n');
    const far = vaultd(['explode']);
    expect(far.status).toBe(2);
    expect(far.stderr).toBe('vaultd: unknown command "explode"; see `vaultd help`\n');
  });

  it('error: a mistyped flag suggests the nearest one, exit 2, before anything is opened', () => {
    const db = join(dir, 'never.duckdb');
    const r = vaultd(['serve', '--db', db, '--prot', '8080']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('vaultd serve: unknown option "--prot"; did you mean "--port"? see `vaultd serve --help`\n');
    expect(existsSync(db)).toBe(false);
    expect(vaultd(['keys', 'list', '--bd', db]).stderr).toBe('vaultd keys list: unknown option "--bd"; did you mean "--db"? see `vaultd keys --help`\n');
    expect(vaultd(['keys', 'lsit']).stderr).toBe('vaultd keys: expected "create NAME", "list" or "revoke ID", got "lsit"; did you mean "list"?\n');
  });
});

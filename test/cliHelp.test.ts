// Developer habits of the CLI (issue #33), driven through the real bin: help for every command,
// "did you mean" for mistyped commands and flags, a taken port said before any world is
// loaded, and the one line for people a server prints once it listens.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../cli/commandSpecs.js';
import { tempDir } from './helpers/common.js';
import { smallDemoDb, stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';

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
    expect(help.stdout.match(/^ {22}default: /gm) ?? []).toHaveLength(Object.keys(spec.flags).length);
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

describe('a taken port', () => {
  let holder: Server;
  let port: number;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    port = (holder.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => holder.close(() => r())));

  const taken = () => `port ${port} on 127.0.0.1 is already in use by another process; stop it or pass another --port`;

  it('serve on an empty database path: said before the demo world is created; nothing written', () => {
    const db = join(dir, 'empty', 'world.duckdb');
    const r = vaultd(['serve', '--db', db, '--port', String(port), '--host', '127.0.0.1'], { VAULTD_LOG_LEVEL: 'info' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`vaultd serve: ${taken()}\n`);
    expect(existsSync(join(dir, 'empty'))).toBe(false);
  });

  it('serve --snapshot: said before the directory is read', () => {
    const snap = join(dir, 'snap');
    mkdirSync(snap);
    const r = vaultd(['serve', '--snapshot', snap, '--port', String(port), '--host', '127.0.0.1'], { VAULTD_LOG_LEVEL: 'info' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`vaultd serve: ${taken()}\n`);
  });

  it('devnet: said before the chain starts, and its database is left alone', () => {
    const db = join(dir, 'devnet.duckdb');
    writeFileSync(db, 'kept');
    const r = vaultd(['devnet', '--db', db, '--port', String(port)], { VAULTD_LOG_LEVEL: 'info', VAULTD_HOST: '127.0.0.1' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`vaultd devnet: ${taken()}\n`);
    expect(existsSync(db)).toBe(true);
  });
});

describe('the serving line', () => {
  /** Everything the child writes, complete once `closed` resolves (its pipes closed after its exit). */
  const collect = (child: ReturnType<typeof vaultdSpawn>) => {
    const out = { stdout: '', stderr: '', closed: new Promise((r) => child.once('close', r)) };
    child.stdout!.on('data', (d: Buffer) => void (out.stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => void (out.stderr += d.toString()));
    return out;
  };

  it('serve prints it once on stdout when it listens; stderr stays JSON lines', async () => {
    const db = join(dir, 'world.duckdb');
    smallDemoDb(db);
    const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
    const out = collect(child);
    try {
      const port = await waitForListening(child);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      await stopChildren([child]);
      await out.closed;
      expect(out.stdout).toBe(`vaultd serving http://127.0.0.1:${port} — explorer at /, docs at /docs\n`);
      const lines = out.stderr.split('\n').filter(Boolean);
      expect(lines.filter((l) => l.includes('"msg":"listening"'))).toHaveLength(1);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    } finally {
      await stopChildren([child]);
    }
  });

  it('a stdout nobody reads (closed before the line) does not stop the server', async () => {
    const db = join(dir, 'closed-stdout.duckdb');
    smallDemoDb(db);
    const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
    child.stdout!.destroy();
    try {
      const port = await waitForListening(child);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await stopChildren([child]);
    }
  });

  it('a snapshot reader prints it too', async () => {
    const snap = join(dir, 'reader');
    mkdirSync(snap);
    const child = vaultdSpawn(['serve', '--snapshot', snap, '--port', '0', '--host', '127.0.0.1']);
    const out = collect(child);
    try {
      const port = await waitForListening(child);
      await stopChildren([child]);
      await out.closed;
      expect(out.stdout).toBe(`vaultd serving http://127.0.0.1:${port} — explorer at /, docs at /docs\n`);
    } finally {
      await stopChildren([child]);
    }
  });
});

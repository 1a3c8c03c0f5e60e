// The README's examples run as written: every fenced sh/bash and js block, against a served small
// demo world, with only the address changed (localhost:8080 → the test server's port) and `npx
// vaultd` pointed at this checkout's bin. Every curl must exit 0 with a 2xx and print JSON that
// parses. A block that cannot run here (installs, long builds, real RPCs, servers that never
// stop) says so with an HTML comment on the line before it, `<!-- not run: why -->`, and is skipped.
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';
import { BIN, smallDemoDb, stopChildren, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

interface Block {
  lang: string;
  code: string;
  line: number;
  notRun: string | null;
}

/** The fenced blocks of a Markdown text, each with the `not run` reason of the comment just before it (blank lines between allowed). */
function fencedBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`README.md:${i + 1}: a fence that never closes`);
    let j = i - 1;
    while (j >= 0 && lines[j]!.trim() === '') j--;
    const marker = j >= 0 ? /^<!-- not run: (.+) -->$/.exec(lines[j]!.trim()) : null;
    blocks.push({ lang: open[1]!, code: lines.slice(i + 1, end).join('\n'), line: i + 1, notRun: marker ? marker[1]! : null });
    i = end;
  }
  return blocks;
}

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const blocks = fencedBlocks(README);
const shell = blocks.filter((b) => b.lang === 'sh' || b.lang === 'bash');
const scripts = blocks.filter((b) => b.lang === 'js' || b.lang === 'ts');
const runnableShell = shell.filter((b) => b.notRun === null);
const runnableScripts = scripts.filter((b) => b.notRun === null);

/** A curl that keeps what it printed and its exit code and HTTP status, one file set per call, and still prints the body (for `$(…)` and pipes). */
const PREAMBLE = `set -euo pipefail
shopt -s inherit_errexit
curl() {
  local f
  f=$(mktemp "$CURL_OUT/curl-XXXXXX")
  local rc=0
  command curl -o "$f.body" -w '%{http_code}' "$@" > "$f.status" || rc=$?
  echo "$rc" > "$f.rc"
  cat "$f.body"
  return "$rc"
}
`;

function localize(code: string, port: number): string {
  return code.replaceAll('localhost:8080', `127.0.0.1:${port}`).replaceAll('npx vaultd', `node ${JSON.stringify(BIN)}`);
}

describe("the README's examples", () => {
  it('marks exactly the blocks that cannot run here, and leaves enough that do', () => {
    for (const b of shell) {
      // installing, building the binary, serving until stopped and real RPCs cannot run in a test: they must say so
      if (/\bnpm (ci|start|install|pack)\b|build:binary|apt-get|docker|kubectl|--probe|vaultd serve/.test(b.code)) {
        expect(b.notRun, `README.md:${b.line} needs a <!-- not run: … --> marker`).not.toBeNull();
      }
    }
    expect(runnableShell.length).toBeGreaterThanOrEqual(4);
    expect(runnableShell.map((b) => b.code.match(/\bcurl /g)?.length ?? 0).reduce((a, n) => a + n, 0)).toBeGreaterThanOrEqual(12);
    expect(runnableScripts.length).toBeGreaterThanOrEqual(1);
    // and a marker is never left dangling before something that is not a block
    expect(README.match(/<!-- not run: /g)?.length).toBe(blocks.filter((b) => b.notRun !== null).length);
  });

  it("stays a user's document: at most 400 lines, and every page it links to exists", () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(400);
    const links = [...README.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThanOrEqual(15);
    expect(links.filter((l) => !existsSync(join(PROJECT_ROOT, l)))).toEqual([]);
  });

  describe('against a served demo world', () => {
    let dir: string;
    let db: string;
    let server: ChildProcess;
    let port: number;
    let ran = 0;

    beforeAll(async () => {
      dir = tempDir('vaultd-readme-');
      db = join(dir, 'demo.duckdb');
      smallDemoDb(db);
      server = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
      port = await waitForListening(server);
    }, 180_000);

    afterAll(async () => {
      if (server) await stopChildren([server]);
    });

    for (const [i, b] of runnableShell.entries()) {
      it(`runs the sh block at README.md:${b.line}`, () => {
        const out = tempDir(`vaultd-readme-block-${i}-`);
        const script = join(out, 'block.sh');
        writeFileSync(script, PREAMBLE + localize(b.code, port));
        const r = spawnSync('bash', [script], {
          cwd: PROJECT_ROOT,
          encoding: 'utf8',
          env: { ...process.env, CURL_OUT: out, VAULTD_DB: db, VAULTD_LOG_LEVEL: 'silent' },
        });
        expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
        const calls = readdirSync(out).filter((f) => /^curl-\w+$/.test(f));
        expect(calls.length).toBe(b.code.match(/\bcurl /g)?.length ?? 0);
        for (const f of calls) {
          const body = readFileSync(join(out, `${f}.body`), 'utf8');
          expect(readFileSync(join(out, `${f}.rc`), 'utf8').trim(), body).toBe('0');
          expect(readFileSync(join(out, `${f}.status`), 'utf8').trim(), body).toMatch(/^2\d\d$/);
          expect(() => JSON.parse(body), body.slice(0, 200)).not.toThrow();
        }
        ran += 1;
      }, 120_000);
    }

    const withoutKey = { ...process.env };
    delete withoutKey.VAULTD_API_KEY;
    for (const b of runnableScripts) {
      it(`runs the ${b.lang} block at README.md:${b.line} in a project outside the checkout that installed vaultd by path`, () => {
        // what `npm install /path/to/vaultd` leaves: node_modules/vaultd, a link to the checkout
        const project = tempDir('vaultd-readme-project-');
        mkdirSync(join(project, 'node_modules'));
        symlinkSync(PROJECT_ROOT, join(project, 'node_modules', 'vaultd'), 'dir');
        writeFileSync(join(project, 'package.json'), '{"name":"readme-sdk-user","private":true,"type":"module"}\n');
        const r = spawnSync(process.execPath, ['--input-type=module'], {
          cwd: project,
          encoding: 'utf8',
          input: localize(b.code, port),
          env: withoutKey,
        });
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout.trim().length).toBeGreaterThan(0);
        ran += 1;
      }, 120_000);
    }

    it('ran every runnable block', () => {
      expect(ran).toBe(runnableShell.length + runnableScripts.length);
    });
  });
});

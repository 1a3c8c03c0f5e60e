// Test helpers for the time-travel proofs (DESIGN §11.6): a database served by `vaultd serve` (a
// real child process on loopback), GETs of its bodies as bytes, and a body normalized to what
// the invariant compares — everything but request_id, refreshed_at, meta.as_of and the cursor's
// MAC and context hash (a cursor of an as_of walk is bound to its as_of query, so that part of
// it differs by design; its key, order, generation and pin are compared).
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopChildren, vaultdSpawn, waitForListening } from '../helpers/cli.js';

export interface Served {
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A configuration file in `dir`: no rate limit a test's walk could reach, and `extra` keys. */
export function testConfig(dir: string, extra: Record<string, unknown> = {}): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify({ rate_limits: { anonymous_per_minute: 1_000_000 }, ...extra }));
  return path;
}

/** `vaultd serve --no-jobs` of `db` (its snapshot files and configuration in `dir`), once it listens. */
export async function serveDb(db: string, dir: string, args: string[] = ['--no-jobs'], config: Record<string, unknown> = {}): Promise<Served> {
  const child = vaultdSpawn([
    'serve',
    '--db',
    db,
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--publish-dir',
    join(dir, 'snapshot'),
    '--config',
    testConfig(dir, config),
    ...args,
  ]);
  const port = await waitForListening(child);
  return { base: `http://127.0.0.1:${port}`, child, stop: () => stopChildren([child]) };
}

export interface Answer {
  status: number;
  text: string;
}

export async function get(base: string, path: string): Promise<Answer> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, text: await res.text() };
}

/** `path` with `name=value` added to its query. */
export const withParam = (path: string, name: string, value: string): string => `${path}${path.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;

/** A cursor's payload without its MAC and its context hash. */
export function cursorPayload(cursor: string): string {
  const bytes = Buffer.from(cursor, 'base64url');
  const { h: _h, ...rest } = JSON.parse(bytes.subarray(0, bytes.length - 16).toString('utf8')) as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** The body as the invariant compares it (byte for byte apart from the parts named above). */
export function normalized(text: string): string {
  const at = text.lastIndexOf('"meta":{');
  if (at < 0) return text;
  const meta = text
    .slice(at)
    .replace(/"as_of":"[^"]*",/, '')
    .replace(/"refreshed_at":"[^"]*"/, '"refreshed_at":"…"')
    .replace(/"request_id":"[^"]*"/, '"request_id":"…"')
    .replace(/"next_cursor":"([^"]*)"/, (_, c: string) => `"next_cursor":${JSON.stringify(cursorPayload(c))}`);
  return text.slice(0, at) + meta;
}

/** meta.next_cursor of a body, or null. */
export function nextCursor(text: string): string | null {
  const m = /"next_cursor":"([^"]*)"/.exec(text.slice(text.lastIndexOf('"meta":{')));
  return m ? m[1]! : null;
}

/** meta.as_of of a body (a view of the past echoes it), or null. */
export function metaAsOf(text: string): string | null {
  const m = /"as_of":"([^"]*)"/.exec(text.slice(text.lastIndexOf('"meta":{')));
  return m ? m[1]! : null;
}

/** Run `work` over `items`, `n` at a time. */
export async function inBatches<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += n) await Promise.all(items.slice(i, i + n).map(work));
}

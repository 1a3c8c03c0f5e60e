// Starting and stopping the servers under test as child processes pinned to the server core,
// and the one-off requests that check what they answer before wrk measures them. Every
// process is ours: stopped by its pid, SIGTERM first, SIGKILL after a grace period.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { childPids } from './procStat.js';

export interface Running {
  name: string;
  port: number;
  pid: number;
  /** pids whose CPU counts as the server's (nginx: master and worker) */
  pids: () => number[];
  stop(): Promise<void>;
}

/** A port no one listens on now (uWS listens with SO_REUSEPORT, so a taken port would not fail). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Spawn `argv` pinned to `core` (taskset execs, so the pid is the server's), output to a log. */
export function spawnPinned(argv: string[], opts: { core: number | null; log: string; cwd?: string }): ChildProcess {
  const fd = openSync(opts.log, 'a');
  const [cmd, ...args] = opts.core === null ? argv : ['taskset', '-c', String(opts.core), ...argv];
  return spawn(cmd!, args, { stdio: ['ignore', fd, fd], cwd: opts.cwd });
}

export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Headers each server writes itself: a baseline answering vaultd's bytes leaves them out of its list. */
export const SERVER_HEADERS = new Set(['date', 'content-length', 'connection', 'uwebsockets', 'server', 'keep-alive', 'transfer-encoding']);

export interface Fetched {
  status: number;
  headers: Record<string, string>;
  /** header names and values in wire order */
  rawHeaders: [string, string][];
  body: Buffer;
}

/** One GET with exactly these headers (no automatic decompression, unlike fetch). */
export function get(port: number, path: string, headers: Record<string, string> = {}, timeoutMs = 2000): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) raw.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, rawHeaders: raw, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Poll `path` until it answers 200; resolves with ms since `since` (performance.now()). */
export async function waitFor200(child: ChildProcess, port: number, path: string, since: number, timeoutMs: number, pollMs = 5): Promise<number> {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited (${child.exitCode ?? child.signalCode}) before answering ${path}`);
    try {
      const r = await get(port, path, {}, 1000);
      if (r.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (performance.now() - since > timeoutMs) throw new Error(`no 200 on ${path} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export async function startProcess(
  name: string,
  argv: string[],
  opts: { core: number | null; dir: string; port: number; readyPath: string; timeoutMs?: number; cwd?: string },
): Promise<Running & { startup_ms: number }> {
  const t0 = performance.now();
  const child = spawnPinned(argv, { core: opts.core, log: join(opts.dir, `${name}.log`), cwd: opts.cwd });
  try {
    const startup = await waitFor200(child, opts.port, opts.readyPath, t0, opts.timeoutMs ?? 30_000);
    return { name, port: opts.port, pid: child.pid!, pids: () => [child.pid!], stop: () => stopChild(child), startup_ms: Math.round(startup) };
  } catch (err) {
    await stopChild(child);
    throw new Error(`${name} did not start (log: ${join(opts.dir, `${name}.log`)})`, { cause: err });
  }
}

/** nginx, 1 worker, sendfile off, access log off, serving `files` (url path → file) with the given headers. */
export async function startNginx(opts: {
  core: number | null;
  dir: string;
  port: number;
  files: { path: string; file: string; headers: [string, string][] }[];
}): Promise<Running & { startup_ms: number }> {
  const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const locations = opts.files
    .map((f) => {
      const type = f.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? 'application/octet-stream';
      const add = f.headers
        .filter(([k]) => k.toLowerCase() !== 'content-type')
        .map(([k, v]) => `      add_header ${k} ${q(v)};`)
        .join('\n');
      return `    location = ${f.path} {\n      alias ${f.file};\n      default_type ${q(type)};\n${add}\n    }`;
    })
    .join('\n');
  const conf = join(opts.dir, 'nginx.conf');
  writeFileSync(
    conf,
    `# generated by bench/http/servers.ts (DESIGN §8 baseline)
worker_processes 1;
daemon off;
master_process on;
pid ${join(opts.dir, 'nginx.pid')};
error_log ${join(opts.dir, 'nginx-error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile off;
  tcp_nopush off;
  server_tokens off;
  etag off;
  keepalive_requests 100000000;
  keepalive_timeout 75s;
  types {}
  client_body_temp_path ${join(opts.dir, 'nginx-body')};
  proxy_temp_path ${join(opts.dir, 'nginx-proxy')};
  fastcgi_temp_path ${join(opts.dir, 'nginx-fastcgi')};
  uwsgi_temp_path ${join(opts.dir, 'nginx-uwsgi')};
  scgi_temp_path ${join(opts.dir, 'nginx-scgi')};
  server {
    listen 127.0.0.1:${opts.port};
    location / { return 404; }
${locations}
  }
}
`,
  );
  const t0 = performance.now();
  const child = spawnPinned(['nginx', '-c', conf, '-p', opts.dir, '-e', join(opts.dir, 'nginx-error.log')], {
    core: opts.core,
    log: join(opts.dir, 'nginx.log'),
  });
  try {
    const startup = await waitFor200(child, opts.port, opts.files[0]!.path, t0, 10_000);
    const master = child.pid!;
    return {
      name: 'nginx',
      port: opts.port,
      pid: master,
      pids: () => [master, ...childPids(master)],
      stop: () => stopChild(child),
      startup_ms: Math.round(startup),
    };
  } catch (err) {
    await stopChild(child);
    throw new Error(`nginx did not start (see ${join(opts.dir, 'nginx-error.log')})`, { cause: err });
  }
}

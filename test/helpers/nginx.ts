// Test helper: Debian's nginx as a real load balancer on loopback. Installed with apt-get when
// missing (CI runs as root); when that is impossible the caller skips with the printed reason.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

const CANDIDATES = ['/usr/sbin/nginx', '/usr/bin/nginx'];

/** The nginx binary, installing Debian's package when missing; a reason string when impossible. */
export function ensureNginx(): { bin: string } | { reason: string } {
  const found = () => CANDIDATES.find((p) => existsSync(p));
  let bin = found();
  if (bin) return { bin };
  if (process.getuid?.() !== 0) return { reason: 'nginx is not installed and this user cannot apt-get install it' };
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-q'], { env, encoding: 'utf8', timeout: 300_000 });
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', '-q', 'nginx'], { env, encoding: 'utf8', timeout: 300_000 }) : update;
  bin = found();
  if (bin) return { bin };
  return {
    reason: `nginx could not be installed with apt-get (exit ${install.status}): ${(install.stderr || install.stdout || '').trim().split('\n').at(-1)}`,
  };
}

/** A free loopback port (asked of the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface Nginx {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * nginx in the foreground in `dir`, balancing round-robin over `upstreams` (loopback ports).
 * `http10` keeps nginx's default proxy_pass (HTTP/1.0 to the upstream, no keep-alive);
 * otherwise HTTP/1.1 with upstream keep-alive, as the README recommends.
 */
export async function startNginx(bin: string, dir: string, upstreams: number[], opts: { http10?: boolean } = {}): Promise<Nginx> {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const port = await freePort();
  const conf = `
worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'logs', 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'client_body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  upstream readers {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=30s;`).join('\n')}
${opts.http10 ? '' : '    keepalive 32;'}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://readers;
      # a reader on a loaded machine may be slow, not dead: only a refused or reset connection
      # should move a request on (a short read timeout marked slow readers down)
      proxy_connect_timeout 30s;
      proxy_read_timeout 60s;
      proxy_next_upstream error timeout;
${opts.http10 ? '' : '      proxy_http_version 1.1;\n      proxy_set_header Connection "";'}
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  return runNginx(bin, dir, port);
}

/** nginx in the foreground with `dir`/nginx.conf, once it accepts connections on `port`. */
async function runNginx(bin: string, dir: string, port: number): Promise<Nginx> {
  const child = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // ready when it accepts connections
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGQUIT');
      }),
  };
}

/**
 * nginx running a site snippet (a file meant for /etc/nginx/conf.d/, e.g. docs/nginx.conf) as
 * it is, inside a minimal main configuration in `dir`; only its listen port and its upstream
 * `server 127.0.0.1:8080` are moved to the test's ports.
 */
export async function startNginxSite(bin: string, dir: string, site: string, upstream: number): Promise<Nginx> {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const port = await freePort();
  const moved = site.replace(/listen 80;/, `listen 127.0.0.1:${port};`).replace(/server 127\.0\.0\.1:8080;/, `server 127.0.0.1:${upstream};`);
  if (moved === site) throw new Error('the site has no "listen 80;" or no "server 127.0.0.1:8080;" to move');
  writeFileSync(join(dir, 'site.conf'), moved);
  const conf = `
worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'logs', 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'client_body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  include ${join(dir, 'site.conf')};
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  return runNginx(bin, dir, port);
}

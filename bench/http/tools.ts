// External tools of the HTTP bench: wrk and nginx (Debian packages, installed when missing and
// running as root), taskset for pinning, Fastify (bench/fastify's own install, made on first use). A missing tool skips its
// baseline with a note instead of failing the bench.
import { execFileSync, spawnSync } from 'node:child_process';
import { ensureBenchPackage } from '../benchPackage.js';

export interface Tools {
  wrk: boolean;
  nginx: boolean;
  taskset: boolean;
  fastify: boolean;
  notes: string[];
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

export async function ensureTools(): Promise<Tools> {
  const notes: string[] = [];
  const missing = ['wrk', 'nginx'].filter((c) => !has(c));
  if (missing.length > 0) {
    if (process.getuid?.() === 0 && has('apt-get')) {
      console.log(`http bench: installing ${missing.join(', ')} (apt-get)`);
      try {
        execFileSync('apt-get', ['update'], { stdio: 'ignore', timeout: 180_000 });
        execFileSync('apt-get', ['install', '-y', ...missing], {
          stdio: 'ignore',
          timeout: 300_000,
          env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        });
      } catch (err) {
        notes.push(`apt-get install ${missing.join(' ')} failed: ${(err as Error).message.split('\n')[0]}`);
      }
    } else {
      notes.push(`${missing.join(', ')} missing and cannot be installed here (needs root and apt-get)`);
    }
  }
  const installed = await ensureBenchPackage('fastify', 'fastify', (line) => console.log(`http bench: ${line}`));
  const fastify = installed.ok;
  if (!installed.ok) notes.push(`${installed.reason}: Fastify baseline skipped`);
  const tools = { wrk: has('wrk'), nginx: has('nginx'), taskset: has('taskset'), fastify, notes };
  if (!tools.wrk) notes.push('wrk unavailable: HTTP throughput figures skipped');
  if (!tools.nginx) notes.push('nginx unavailable: nginx baseline skipped');
  if (!tools.taskset) notes.push('taskset unavailable: server and wrk not pinned to separate cores');
  return tools;
}

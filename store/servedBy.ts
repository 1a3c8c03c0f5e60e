// Which processes serve a database file. A server opens the file per job and closes it after,
// so DuckDB's lock does not say that a server depends on the file between jobs; each `vaultd
// serve` leaves a marker beside the database (`<db>.served-by-<pid>`) while it runs, and a
// command about to replace the file (`vaultd demo --force`) asks here first. A marker whose
// process is gone (kill -9) is stale: ignored and removed.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export interface ServingProcess {
  pid: number;
  /** what it serves on, e.g. "127.0.0.1:8080" */
  listen: string;
  /** RFC 3339 */
  started_at: string;
}

const prefix = (db: string) => `${basename(db)}.served-by-`;

export interface ServingMarker {
  /** Rewrite the marker (e.g. with the port the server got once it listens). */
  update(info: Omit<ServingProcess, 'pid'>): void;
  /** Remove it (also run at exit); idempotent. */
  remove(): void;
}

/** Say that this process serves `db`, until the marker is removed or the process exits. */
export function markServing(db: string, info: Omit<ServingProcess, 'pid'>): ServingMarker {
  const path = `${resolve(db)}.served-by-${process.pid}`;
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    rmSync(path, { force: true });
  };
  const write = (next: Omit<ServingProcess, 'pid'>) => {
    if (removed) return;
    try {
      writeFileSync(path, JSON.stringify({ pid: process.pid, ...next } satisfies ServingProcess));
    } catch {
      // a marker that cannot be written (a full or read-only disk) only weakens demo --force's check
      remove();
    }
  };
  process.once('exit', remove);
  write(info);
  return { update: write, remove };
}

/** The live processes that serve `db` (this one excluded); stale markers are removed. */
export function servingProcesses(db: string): ServingProcess[] {
  const file = resolve(db);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return [];
  }
  const out: ServingProcess[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix(file))) continue;
    const pid = Number(name.slice(prefix(file).length));
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const path = join(dirname(file), name);
    if (!alive(pid)) {
      rmSync(path, { force: true });
      continue;
    }
    try {
      out.push({ ...(JSON.parse(readFileSync(path, 'utf8')) as ServingProcess), pid });
    } catch {
      out.push({ pid, listen: '?', started_at: '?' });
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// What the runtime notices about the database file between its own rounds: another file renamed
// onto the path (`vaultd demo --force`, a restore), whose world must be reloaded from scratch
// rather than spliced into the one held; and a write by another process (a `vaultd ingest` beside
// the server), whose rows a refresh should take in though no round of ours wrote them.
import { statSync } from 'node:fs';

export interface FileWatch {
  /** Another file is at the path since the watch began or the last `reloaded`. */
  replaced(): boolean;
  /** The world held is the file now at the path. */
  reloaded(): void;
  /** The file (or its write-ahead log) changed since the last `settle`. */
  changed(): boolean;
  /** The file as it is now is as this process left it. */
  settle(): void;
}

/** Device and inode of the file ('' when missing): changes when another file is renamed onto it. */
export function fileIdentity(path: string): string {
  try {
    const s = statSync(path);
    return `${s.dev}:${s.ino}`;
  } catch {
    return '';
  }
}

/** Size and modification time of the file and of its write-ahead log ('-' for a missing one). */
export function fileStamp(path: string): string {
  const one = (p: string) => {
    const s = statSync(p, { throwIfNoEntry: false });
    return s === undefined ? '-' : `${s.size}:${s.mtimeMs}`;
  };
  try {
    return `${one(path)}|${one(`${path}.wal`)}`;
  } catch {
    return '-|-';
  }
}

/** Watches `path` from now. ':memory:' never changes. */
export function createFileWatch(path: string): FileWatch {
  if (path === ':memory:') return { replaced: () => false, reloaded: () => undefined, changed: () => false, settle: () => undefined };
  let identity = fileIdentity(path);
  let stamp = fileStamp(path);
  return {
    replaced: () => fileIdentity(path) !== identity,
    reloaded: () => void (identity = fileIdentity(path)),
    changed: () => fileStamp(path) !== stamp,
    settle: () => void (stamp = fileStamp(path)),
  };
}

// The process's file descriptors (Linux /proc): the soft limit, how many are open, and the
// reserve kept free for work that must not fail for lack of one. The HTTP server stops
// accepting connections inside the reserve; the store refuses to open a database there
// (DuckDB aborts the whole process when a file open fails with EMFILE mid-way).
import { readdirSync, readFileSync } from 'node:fs';

export interface FileDescriptors {
  limit: number;
  /** descriptors kept free: max(16, 5 % of the limit) */
  reserve: number;
  open(): number;
}

let cached: FileDescriptors | null | undefined;

/** The descriptor facts of this process, or null where /proc is not available. */
export function fileDescriptors(): FileDescriptors | null {
  if (cached !== undefined) return cached;
  cached = null;
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!m) return null;
    const limit = Number(m[1]);
    const open = () => {
      try {
        return readdirSync('/proc/self/fd').length;
      } catch {
        return limit; // no descriptor left even to look: at the limit
      }
    };
    readdirSync('/proc/self/fd');
    cached = { limit, reserve: Math.max(16, Math.floor(limit / 20)), open };
  } catch {
    cached = null;
  }
  return cached;
}

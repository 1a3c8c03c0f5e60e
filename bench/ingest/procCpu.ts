// CPU time of another process from /proc/<pid>/stat (utime + stime, Linux, 100 Hz ticks): it
// keeps the time of threads that have ended, so it only grows — the per-thread schedstat sum
// of bench/http/procStat.ts drops when a thread exits (the node's and Ponder's come and go).
import { readFileSync } from 'node:fs';

const TICK_MS = 10;

/** ms of CPU used so far by `pid` (all its threads, living and ended); NaN when unreadable. */
export function processCpuMs(pid: number): number {
  try {
    // fields after "pid (comm) ": state is [0], utime [11], stime [12]
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

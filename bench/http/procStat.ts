// Server-side resource readings from /proc (Linux): CPU time of a process tree with
// nanosecond resolution (per-thread schedstat), per-core busy time, and RSS. The HTTP bench
// divides a server's CPU time over a run by the requests wrk completed (DESIGN §8).
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (ns) of every thread of `pid`; threads that exited earlier are not counted. */
export function processCpuNs(pid: number): number {
  let total = 0;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tids) {
    try {
      // schedstat: "<ns on cpu> <ns waiting> <timeslices>"
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // thread ended between readdir and read
    }
  }
  if (total > 0) return total;
  // No schedstat (kernel without CONFIG_SCHEDSTATS): utime + stime in clock ticks (100 Hz).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 1e7;
}

/** Sum of processCpuNs over several pids (nginx: master + worker). */
export function treeCpuNs(pids: readonly number[]): number {
  return pids.reduce((sum, p) => sum + processCpuNs(p), 0);
}

/** Direct children of a process (nginx workers of a master). */
export function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** Busy and total clock ticks per core (from /proc/stat), to see foreign load on a pinned core. */
export function coreTicks(): { busy: number; total: number }[] {
  const out: { busy: number; total: number }[] = [];
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const v = m[2]!.trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    out[Number(m[1])] = { busy: total - idle, total };
  }
  return out;
}

/** Resident set size now and at its peak, in MiB. */
export function rssMiB(pid: number): { rss_mib: number; peak_rss_mib: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss_mib: round1(kib('VmRSS') / 1024), peak_rss_mib: round1(kib('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

export function loadAverage(): number[] {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  } catch {
    return [];
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

// A pino logger for the indexer under bench: keeps every `range committed` line (its span and
// `phases_ms`: logs fetch, headers, decode + rows, hourly multicall reads, commit) for the
// phase breakdown and the fetch-only baseline's ranges, and echoes a short progress line and
// any warning or error to stderr.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface CommittedRange {
  from: number;
  to: number;
  logs: number;
  events: number;
  snapshots: number;
  ms: number;
  phases_ms: Record<string, number>;
}

export interface RangeRecorder {
  logger: Logger;
  ranges: CommittedRange[];
  /** warn and above, as logged */
  problems: string[];
}

export function createRangeRecorder(label: string, say: (line: string) => void): RangeRecorder {
  const ranges: CommittedRange[] = [];
  const problems: string[] = [];
  let pending = '';
  const onLine = (line: string) => {
    const entry = JSON.parse(line) as { level: number; msg: string } & Partial<CommittedRange> & Record<string, unknown>;
    if (entry.msg === 'range committed') {
      const r: CommittedRange = {
        from: entry.from!,
        to: entry.to!,
        logs: entry.logs!,
        events: entry.events!,
        snapshots: entry.snapshots!,
        ms: entry.ms!,
        phases_ms: entry.phases_ms!,
      };
      ranges.push(r);
      say(
        `${label}: blocks ${r.from}..${r.to} of ${String(entry.target)}: ${r.logs} logs, ${r.events} events, ${r.snapshots} snapshots in ${r.ms} ms ${JSON.stringify(r.phases_ms)}`,
      );
    } else if (entry.level >= 40) {
      problems.push(line);
      say(`${label}: ${line}`);
    }
  };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.length > 0) onLine(line);
      }
      done();
    },
  });
  return { logger: pino({ level: 'info', base: { service: 'vaultd' } }, sink), ranges, problems };
}

/** Sum of each phase over the ranges. */
export function phaseTotals(ranges: readonly CommittedRange[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of ranges) for (const [k, v] of Object.entries(r.phases_ms)) out[k] = (out[k] ?? 0) + v;
  return out;
}

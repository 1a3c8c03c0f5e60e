// Where a server's time goes under load: reads a V8 .cpuprofile (`node --cpu-prof`) and prints
// self time and inclusive time per function (name and file:line), top first. Used by the HTTP
// bench's profile mode to explain a missed target.
// Usage: node dist/bench/http/profileSummary.js <file.cpuprofile> [top=30] [self|total]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionTime {
  fn: string;
  where: string;
  self_pct: number;
  total_pct: number;
  self_ms: number;
  total_ms: number;
}

export function summarizeProfile(
  path: string,
  top = 30,
  by: 'self' | 'total' = 'self',
): { samples: number; ms: number; idle_pct: number; functions: FunctionTime[] } {
  const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (n: ProfileNode) => {
    const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/^.*\/(dist|node_modules)\//, '$1/');
    return `${n.callFrame.functionName || '(anonymous)'}\t${url ? `${url}:${n.callFrame.lineNumber + 1}` : ''}`;
  };
  const selfTime = new Map<string, number>();
  const totalTime = new Map<string, number>();
  let all = 0;
  let idle = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    all += dt;
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') idle += dt;
    selfTime.set(key(n), (selfTime.get(key(n)) ?? 0) + dt);
    // inclusive: every distinct function on the stack once
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = key(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      totalTime.set(k, (totalTime.get(k) ?? 0) + dt);
    }
  });
  const pct = (x: number) => Math.round((x / all) * 1000) / 10;
  const ms = (us: number) => Math.round(us / 100) / 10;
  const functions = [...totalTime.keys()]
    .map((k) => {
      const [fn, where] = k.split('\t');
      return { fn: fn!, where: where!, self: selfTime.get(k) ?? 0, total: totalTime.get(k)! };
    })
    .sort((a, b) => b[by] - a[by])
    .slice(0, top)
    .map((f) => ({ fn: f.fn, where: f.where, self_pct: pct(f.self), total_pct: pct(f.total), self_ms: ms(f.self), total_ms: ms(f.total) }));
  return { samples: p.samples.length, ms: ms(all), idle_pct: pct(idle), functions };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, top, by] = process.argv.slice(2);
  if (!file) {
    console.error('usage: profileSummary.js <file.cpuprofile> [top=30] [self|total]');
    process.exit(2);
  }
  const s = summarizeProfile(file, Number(top ?? 30), by === 'total' ? 'total' : 'self');
  console.log(`${s.samples} samples over ${s.ms} ms, idle ${s.idle_pct} %`);
  console.table(s.functions);
}

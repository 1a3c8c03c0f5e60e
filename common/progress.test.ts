import { describe, expect, it } from 'vitest';
import type { Logger } from './logger.js';
import { createProgress } from './progress.js';

describe('progress lines', () => {
  it('one line per 10 % step crossed, each with the exact percent done', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = { info: (o: Record<string, unknown>) => lines.push(o) } as unknown as Logger;
    const p = createProgress(logger, 'work', { tty: false });
    for (const done of [0, 1, 2, 4, 5, 6]) p.update(done, 6);
    expect(lines.map((l) => l.percent)).toEqual([0, 16, 33, 66, 83, 100]);
    p.update(6, 6);
    expect(lines).toHaveLength(6);
    expect(lines[3]).toMatchObject({ task: 'work', done: 4, total: 6 });
  });
});

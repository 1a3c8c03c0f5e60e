// Progress of long work: a bar on a TTY (cli-progress, on stderr), otherwise a structured
// log line at every 10 % step so logs stay JSON lines.
import cliProgress from 'cli-progress';
import type { Logger } from './logger.js';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export function createProgress(logger: Logger, task: string, opts: { tty?: boolean } = {}): Progress {
  const tty = opts.tty ?? Boolean(process.stderr.isTTY);
  if (tty) {
    const bar = new cliProgress.SingleBar(
      { format: `${task} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}`, stream: process.stderr, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total) {
        if (!started) {
          bar.start(total, done);
          started = true;
        } else bar.update(done);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let lastStep = -1;
  const t0 = Date.now();
  return {
    update(done, total) {
      const step = total > 0 ? Math.floor((done / total) * 10) : 10;
      if (step > lastStep) {
        lastStep = step;
        // the percent of the work done, not of the 10 % step that triggered the line
        logger.info({ task, done, total, percent: total > 0 ? Math.floor((done / total) * 100) : 100, elapsed_ms: Date.now() - t0 }, 'progress');
      }
    },
    stop() {},
  };
}

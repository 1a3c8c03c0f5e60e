// A stop signal's grace, and the hold of work that is still progressing: run in child
// processes (a signal handler in the test worker would outlive the test). Orders are asserted,
// not durations: the closer takes ten steps, the grace is one.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const signals = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'common', 'signals.js');

/** A process that stops itself with SIGTERM while a closer runs for 1.5 s; its stdout lines. */
function stop(hold: 'moving' | 'still' | 'none'): string[] {
  const script = `
    import { holdStopWhileProgressing, installStopSignals, trackShutdown } from ${JSON.stringify(signals)};
    let done = false;
    let count = 0;
    installStopSignals((code) => { process.stdout.write('exit\\n'); process.exit(code); }, 150, 300);
    trackShutdown({ add() {}, closing: false, close: () => new Promise((r) => setTimeout(() => { done = true; process.stdout.write('closed\\n'); r(); }, 1500)) });
    if (${JSON.stringify(hold)} !== 'none') holdStopWhileProgressing(() => count);
    if (${JSON.stringify(hold)} === 'moving') setInterval(() => { if (!done) count++; }, 10);
    setInterval(() => {}, 1000); // keeps the process alive until it exits
    process.kill(process.pid, 'SIGTERM');`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(child.status, child.stderr).toBe(0);
  return child.stdout.trim().split('\n');
}

describe('stop signals', () => {
  it('exit at the grace when nothing holds the stop: the closer is cut short', () => {
    expect(stop('none')).toEqual(['exit']);
  });

  it('a hold whose progress moves keeps the stop waiting past the grace until the closer is done', () => {
    expect(stop('moving')).toEqual(['closed', 'exit']);
  });

  it('a hold whose progress stands still does not keep the stop waiting', () => {
    expect(stop('still')).toEqual(['exit']);
  });
});

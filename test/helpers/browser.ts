// Headless Debian Chromium driven by playwright-core, for the browser tests (the client SDK,
// later the explorer pages). Installs the Debian package when it is missing and this process
// may (root with apt-get), else fails with the command to run. Each launch gets a fresh profile.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const INSTALL_CHROMIUM = 'apt-get update && apt-get install -y chromium';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium binary; installs Debian's package first when it is missing and we are root. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const root = process.getuid?.() === 0;
  const apt = spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status === 0;
  if (root && apt) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () => spawnSync('apt-get', ['install', '-y', '-q', 'chromium'], { env, encoding: 'utf8', timeout: 15 * 60_000 });
    // the package lists may be missing or stale on a fresh machine: update once, then retry
    if (install().status !== 0) {
      spawnSync('apt-get', ['update', '-q'], { env, encoding: 'utf8', timeout: 10 * 60_000 });
      install();
    }
    if (existsSync(CHROMIUM)) return CHROMIUM;
  }
  throw new Error(`Chromium is not installed at ${CHROMIUM}; install it with: ${INSTALL_CHROMIUM}`);
}

export interface Browser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Headless Chromium with the flags above and a fresh --user-data-dir (removed on close). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = ensureChromium();
  const userDataDir = mkdtempSync(join(tmpdir(), 'vaultd-chromium-'));
  try {
    // a persistent context is how playwright takes a user-data-dir of our choosing
    // no playwright deadlines (30 s each by default): a loaded machine is slow, not broken, and
    // the test's own timeout bounds every wait
    const context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: FLAGS, timeout: 0 });
    context.setDefaultTimeout(0);
    context.setDefaultNavigationTimeout(0);
    return {
      context,
      newPage: () => context.newPage(),
      async close() {
        try {
          await context.close();
        } finally {
          rmSync(userDataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
}

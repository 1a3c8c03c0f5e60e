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

export interface OpenedPage {
  page: Page;
  /** every URL the page requested */
  requests: string[];
  /** console errors and uncaught page errors */
  errors: string[];
}

/** A new 1280 × 900 page at `url`, its requests and errors recorded from the start, once `ready` is on it. */
export async function openPage(browser: Browser, url: string, ready = 'body[data-ready="true"]'): Promise<OpenedPage> {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const o: OpenedPage = { page, requests: [], errors: [] };
  page.on('request', (r) => o.requests.push(r.url()));
  page.on('pageerror', (e) => o.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') o.errors.push(m.text());
  });
  await page.goto(url);
  await page.waitForSelector(ready);
  return o;
}

export interface PageCost {
  /** bytes on the wire (headers included) of every response the page loaded, by kind */
  bytes: { document: number; script: number; stylesheet: number; api: number; other: number; total: number };
  requests: number;
  /** first contentful paint, ms after navigation start (a measurement, never asserted) */
  fcpMs: number | null;
}

/**
 * Load `url` in a new page with the browser cache off (every byte comes over the wire, as on a
 * first visit) and add up what it transferred (CDP `Network.loadingFinished`) until `ready`
 * shows and the network has been idle; with its first contentful paint from the Paint Timing API.
 */
export async function measurePage(browser: Browser, url: string, width: number, ready: string): Promise<PageCost> {
  const page = await browser.newPage();
  try {
    await page.setViewportSize({ width, height: 900 });
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const kinds = new Map<string, string>();
    const bytes = { document: 0, script: 0, stylesheet: 0, api: 0, other: 0, total: 0 };
    let requests = 0;
    cdp.on('Network.responseReceived', (e) => {
      const path = new URL(e.response.url).pathname;
      const kind = /^\/(v1|health)(\/|$)/.test(path)
        ? 'api'
        : e.type === 'Document'
          ? 'document'
          : e.type === 'Script'
            ? 'script'
            : e.type === 'Stylesheet'
              ? 'stylesheet'
              : 'other';
      kinds.set(e.requestId, kind);
    });
    cdp.on('Network.loadingFinished', (e) => {
      const kind = (kinds.get(e.requestId) ?? 'other') as keyof typeof bytes;
      bytes[kind] += e.encodedDataLength;
      bytes.total += e.encodedDataLength;
      requests++;
    });
    await page.goto(url);
    await page.waitForSelector(ready, { timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    const fcpMs = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
    await cdp.detach();
    return { bytes, requests, fcpMs: fcpMs === null ? null : Math.round(fcpMs) };
  } finally {
    await page.close();
  }
}

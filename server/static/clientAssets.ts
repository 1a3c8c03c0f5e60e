// The client SDK as the build emits it (dist/client: ES modules and their maps), served to
// browsers under /client/ (entry /client/index.js) for the browser test and the explorer pages.
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../common/version.js';
import type { PageRoutes, StaticMount } from './staticAssets.js';

export const CLIENT_MOUNT: StaticMount = { mount: '/client/', dir: join(PROJECT_ROOT, 'dist', 'client') };

/** The explorer's built files (scripts/buildExplorer.mjs) and the page routes that show them. */
export const EXPLORER_MOUNT: StaticMount = { mount: '/explorer/', dir: join(PROJECT_ROOT, 'dist', 'explorer') };
export const EXPLORER_PAGES: PageRoutes = {
  exact: { '/': '/explorer/index.html', '/docs': '/explorer/docs.html', '/docs/': '/explorer/docs.html', '/status': '/explorer/status.html' },
  segment: [
    ['/vaults/', '/explorer/vault.html'],
    ['/wallets/', '/explorer/wallet.html'],
  ],
};

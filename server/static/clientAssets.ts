// The client SDK as the build emits it (dist/client: ES modules and their maps), served to
// browsers under /client/ (entry /client/index.js) for the browser test and the explorer pages.
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../common/version.js';
import type { StaticMount } from './staticAssets.js';

export const CLIENT_MOUNT: StaticMount = { mount: '/client/', dir: join(PROJECT_ROOT, 'dist', 'client') };

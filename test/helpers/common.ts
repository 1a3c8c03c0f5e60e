// Test helpers: a quiet `common` bundle and temp database paths.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommon, type Common } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createLogger } from '../../common/logger.js';

export function testCommon(): Common {
  return createCommon(loadConfig(VAULT_TYPES, {}, {}), { logger: createLogger('silent') });
}

export function tempDir(prefix = 'vaultd-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

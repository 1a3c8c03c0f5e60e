// Writes docs/config.schema.json, the configuration's JSON Schema, from the valibot schema
// vaultd validates with (common/configJsonSchema.ts); common/configJsonSchema.test.ts fails on
// drift. Editors validate a config file against it with `"$schema": "./docs/config.schema.json"`.
//
//   npm run config:schema            regenerate docs/config.schema.json
//   npm run config:schema -- --check exit 1 when the committed file differs
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONFIG_SCHEMA_FILE, configJsonSchema } from '../common/configJsonSchema.js';
import { PROJECT_ROOT } from '../common/version.js';
import { VAULT_TYPES } from '../families/index.js';

/** The file's text: the schema, two-space indented, with a final newline. */
export const configSchemaText = (): string => `${JSON.stringify(configJsonSchema(VAULT_TYPES), null, 2)}\n`;

function main(argv: string[]): number {
  const file = join(PROJECT_ROOT, CONFIG_SCHEMA_FILE);
  const text = configSchemaText();
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // missing: stale
    }
    if (current === text) return 0;
    console.error(`${CONFIG_SCHEMA_FILE} is stale: run \`npm run config:schema\` and commit it`);
    return 1;
  }
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));

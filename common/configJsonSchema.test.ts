// docs/config.schema.json is generated from the valibot schema and committed: this regenerates it
// and fails on any difference, checks every described key exists, and holds the JSON Schema and
// the valibot schema to the same verdicts on real configuration files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { configSchemaText } from '../scripts/generateConfigSchema.js';
import { at, CONFIG_DESCRIPTIONS, CONFIG_SCHEMA_FILE, configJsonSchema } from './configJsonSchema.js';
import { validateConfig } from './config.js';
import { VAULT_TYPES } from '../families/index.js';
import { PROJECT_ROOT } from './version.js';

const addFormats = addFormatsModule.default;
const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');

/** The README's complete configuration examples: the ```json blocks that are whole objects. */
function readmeConfigs(): unknown[] {
  const out: unknown[] = [];
  for (const m of read('README.md').matchAll(/```json\n([\s\S]*?)```/g)) {
    try {
      const value = JSON.parse(m[1]!);
      if (value && typeof value === 'object' && !Array.isArray(value)) out.push(value);
    } catch {
      // a fragment (one key of a file), not a whole configuration
    }
  }
  return out;
}

describe('docs/config.schema.json', () => {
  it('equals what the generator makes of the valibot schema (run `npm run config:schema` when this fails)', () => {
    expect(read(CONFIG_SCHEMA_FILE)).toBe(configSchemaText());
  });

  it('every described key path is a key of the schema', () => {
    const schema = configJsonSchema(VAULT_TYPES);
    for (const path of Object.keys(CONFIG_DESCRIPTIONS)) expect(at(schema, path), path).toBeDefined();
  });

  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(read(CONFIG_SCHEMA_FILE)));

  it('the example registry and the README examples pass both schemas', () => {
    const files = [JSON.parse(read('data/registry.example.json')), ...readmeConfigs()];
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const [i, file] of files.entries()) {
      expect(validateConfig(VAULT_TYPES, file), `file ${i}`).toEqual([]);
      expect(validate(file), `file ${i}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('a typo, a bad value and a missing key fail both schemas', () => {
    const bad = [
      { rate_limit: { keyed_per_minute: 5 } },
      { server: { port: 70000 } },
      { chains: [{ chain_id: 1, slug: 'ethereum' }] },
      { registry: { vaults: [{ chain_id: 1, address: '0x12', vault_type: 'morpho_v1' }] } },
      { prices: { providers: [{ kind: 'chainlink', chain_id: 1, feeds: [] }] } },
      { tvl_sources: [{ id: 'x', label: 'X', kind: 'static', usd: '-1' }] },
    ];
    for (const file of bad) {
      expect(validateConfig(VAULT_TYPES, file).length, JSON.stringify(file)).toBeGreaterThan(0);
      // `usd` is checked after a transform, which JSON Schema cannot say: valibot alone refuses it
      if (!('tvl_sources' in file)) expect(validate(file), JSON.stringify(file)).toBe(false);
    }
    expect(validateConfig(VAULT_TYPES, { rate_limit: {} })[0]!.text).toBe('unknown key "rate_limit"; did you mean "rate_limits"?');
  });
});

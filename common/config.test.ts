import { mkdtempSync, writeFileSync } from 'node:fs';
import { VAULT_TYPES } from '../families/index.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { VaultdError } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'vaultd-config-'));
function file(content: unknown): string {
  const p = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}
function failure(fn: () => unknown): VaultdError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(VaultdError);
    return e as VaultdError;
  }
  throw new Error('expected a failure');
}

describe('config', () => {
  it('defaults: every key optional', () => {
    const c = loadConfig(VAULT_TYPES, {}, {});
    expect(c.db).toBe('data/vaultd.duckdb');
    expect(c.server).toEqual({ host: '0.0.0.0', port: 8080, trusted_proxies: [], transport: 'uws', metrics_public: true });
    expect(c.auth.anonymous).toBe(true);
    expect(c.rate_limits).toEqual({ anonymous_per_minute: 60, keyed_per_minute: 600 });
    expect(c.schedules).toEqual({ ingest: '*/15 * * * * *', prices: '0 */5 * * * *' });
    expect(c.chains).toEqual([]);
    expect(c.registry).toEqual({ strategies: [], groups: [], vaults: [] });
    expect(Object.isFrozen(c) && Object.isFrozen(c.server)).toBe(true);
  });

  it('precedence: defaults < file < env < flags', () => {
    const f = file({ db: 'from-file.duckdb', server: { port: 9001, host: '127.0.0.2' }, rate_limits: { keyed_per_minute: 5 } });
    expect(loadConfig(VAULT_TYPES, { config: f }, {}).server.port).toBe(9001);
    expect(loadConfig(VAULT_TYPES, { config: f }, {}).rate_limits).toEqual({ anonymous_per_minute: 60, keyed_per_minute: 5 });
    const env = { VAULTD_DB: 'env.duckdb', VAULTD_PORT: '9002' };
    expect(loadConfig(VAULT_TYPES, { config: f }, env).db).toBe('env.duckdb');
    expect(loadConfig(VAULT_TYPES, { config: f }, env).server).toEqual({
      host: '127.0.0.2',
      port: 9002,
      trusted_proxies: [],
      transport: 'uws',
      metrics_public: true,
    });
    expect(loadConfig(VAULT_TYPES, { config: f, port: 9003, db: 'flag.duckdb' }, env)).toMatchObject({ db: 'flag.duckdb', server: { port: 9003 } });
    expect(loadConfig(VAULT_TYPES, {}, { VAULTD_CONFIG: f }).db).toBe('from-file.duckdb');
  });

  it('slo: objectives default to 7200 s, 50 ms and 0.999; each is checked and named when wrong (DESIGN §11.9)', () => {
    expect(loadConfig(VAULT_TYPES, {}, {}).slo).toEqual({ freshness_seconds: 7200, latency_p99_ms: 50, availability: 0.999 });
    expect(loadConfig(VAULT_TYPES, { config: file({ slo: { availability: 0.99, latency_p99_ms: 12.5 } }) }, {}).slo).toEqual({
      freshness_seconds: 7200,
      latency_p99_ms: 12.5,
      availability: 0.99,
    });
    for (const [slo, key] of [
      [{ availability: 1 }, 'slo.availability'],
      [{ availability: 0 }, 'slo.availability'],
      [{ latency_p99_ms: 0 }, 'slo.latency_p99_ms'],
      [{ freshness_seconds: 1.5 }, 'slo.freshness_seconds'],
      [{ freshness: 60 }, 'slo.freshness'],
    ] as const) {
      const e = failure(() => loadConfig(VAULT_TYPES, { config: file({ slo }) }, {}));
      expect(e.code).toBe('CONFIG_INVALID');
      expect(e.message).toContain(`"${key}"`);
    }
  });

  it('error: a bad value names its exact key', () => {
    const e = failure(() => loadConfig(VAULT_TYPES, { config: file({ rate_limits: { anonymous_per_minute: 'lots' } }) }, {}));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('"rate_limits.anonymous_per_minute"');
  });

  it('error: a bad item of a list names its index', () => {
    const e = failure(() =>
      loadConfig(VAULT_TYPES, { config: file({ chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: ['not a url'] }] }) }, {}),
    );
    expect(e.message).toContain('"chains.0.rpc_urls.0"');
  });

  it("error: a vault_type no family has names the key and the families' types, in the table's order", () => {
    const vault = (vault_type: string) => ({
      chain_id: 1,
      address: `0x${'1'.repeat(40)}`,
      vault_type,
      name: 'v',
      symbol: 'v',
      numeraire_token: { address: `0x${'2'.repeat(40)}`, decimals: 6, symbol: 'USDC' },
    });
    const f = file({ registry: { vaults: [vault(VAULT_TYPES[0]), vault('erc4627')] } });
    expect(failure(() => loadConfig(VAULT_TYPES, { config: f }, {})).message).toBe(
      `invalid configuration in "${f}": "registry.vaults.1.vault_type": Invalid type: Expected (${VAULT_TYPES.map((t) => `"${t}"`).join(' | ')}) but received "erc4627"`,
    );
    // the list is the caller's: common/ knows no family
    expect(loadConfig(['erc4627'], { config: file({ registry: { vaults: [vault('erc4627')] } }) }, {}).registry.vaults[0]!.vault_type).toBe('erc4627');
  });

  it('error: an unknown key is named', () => {
    const e = failure(() => loadConfig(VAULT_TYPES, { config: file({ server: { prot: 80 } }) }, {}));
    expect(e.message).toContain('unknown key "server.prot"; did you mean "port"?');
  });

  it('error: a typo of a key suggests the closest one, at any depth and inside variants; nothing far-fetched', () => {
    expect(failure(() => loadConfig(VAULT_TYPES, { config: file({ rate_limit: {} }) }, {})).message).toMatch(
      /unknown key "rate_limit"; did you mean "rate_limits"\?$/,
    );
    const chain = { chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: ['http://127.0.0.1:1'], finality_block: 1 };
    expect(failure(() => loadConfig(VAULT_TYPES, { config: file({ chains: [chain] }) }, {})).message).toContain(
      'unknown key "chains.0.finality_block"; did you mean "finality_blocks"?',
    );
    const provider = { kind: 'static', price: [] };
    expect(failure(() => loadConfig(VAULT_TYPES, { config: file({ prices: { providers: [provider] } }) }, {})).message).toContain(
      'unknown key "prices.providers.0.price"; did you mean "prices"?',
    );
    expect(failure(() => loadConfig(VAULT_TYPES, { config: file({ zebra: 1 }) }, {})).message).toMatch(/unknown key "zebra"$/);
  });

  it('error: invalid JSON, missing file, bad env', () => {
    expect(failure(() => loadConfig(VAULT_TYPES, { config: file('{"db": ') }, {})).message).toMatch(/is not valid JSON/);
    expect(failure(() => loadConfig(VAULT_TYPES, { config: join(dir, 'nope.json') }, {})).message).toMatch(/does not exist/);
    expect(failure(() => loadConfig(VAULT_TYPES, {}, { VAULTD_PORT: 'eighty' })).message).toContain('VAULTD_PORT');
    expect(failure(() => loadConfig(VAULT_TYPES, {}, { VAULTD_LOG_LEVEL: 'loud' })).message).toContain('VAULTD_LOG_LEVEL');
  });
});

describe('data/registry.example.json', () => {
  it('is a valid configuration file with the real manifest deployments', async () => {
    const { PROJECT_ROOT } = await import('./version.js');
    const c = loadConfig(VAULT_TYPES, { config: join(PROJECT_ROOT, 'data', 'registry.example.json') }, {});
    expect(c.registry.vaults.length).toBeGreaterThanOrEqual(90);
    expect(new Set(c.registry.vaults.map((v) => v.vault_type))).toEqual(new Set(['aera_v3', 'morpho_v1', 'morpho_v2']));
    const groups = new Set(c.registry.groups.map((g) => g.id));
    for (const v of c.registry.vaults) expect(groups.has(v.group_id!)).toBe(true);
    // mainnet Chainlink USD feeds for the big numeraires first, the coin-price API for the rest
    expect(c.prices.providers.map((p) => p.kind)).toEqual(['chainlink', 'http']);
    const numeraires = new Set(c.registry.vaults.filter((v) => v.chain_id === 1).map((v) => v.numeraire_token.address));
    const chainlink = c.prices.providers[0] as Extract<(typeof c.prices.providers)[number], { kind: 'chainlink' }>;
    for (const f of chainlink.feeds) expect(numeraires.has(f.token)).toBe(true);
  });
});

// The one place that reads configuration: defaults < config file < environment < flags
// (DESIGN §2). Validated with valibot; an error names the exact bad key. Returns a frozen object.
import { existsSync, readFileSync } from 'node:fs';
import * as v from 'valibot';
import { isAddressOrCidr } from './addresses.js';
import { VaultdError } from './errors.js';

const nonEmpty = v.pipe(v.string(), v.minLength(1));
const port = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535));
const positiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));
const address = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'Expected a 0x-prefixed 20-byte hex address'));
const nullableString = v.optional(v.nullable(v.string()));

/** An RPC URL, alone or with its budget (README "Pointing vaultd at a real RPC"; defaults: jobs/evm/rpcBudget.ts). */
const RpcUrlSchema = v.union(
  [
    v.pipe(v.string(), v.url()),
    v.strictObject({
      url: v.pipe(v.string(), v.url()),
      max_requests_per_second: v.optional(v.pipe(v.number(), v.minValue(0.01), v.maxValue(100_000))),
      max_concurrency: v.optional(v.pipe(positiveInt, v.maxValue(1_000))),
      max_block_range: v.optional(v.pipe(positiveInt, v.maxValue(10_000_000))),
      batch_size: v.optional(v.pipe(positiveInt, v.maxValue(1_000))),
    }),
  ],
  'Expected a URL, or an object of "url" and any of "max_requests_per_second", "max_concurrency", "max_block_range", "batch_size"',
);

export type RpcUrlEntry = v.InferOutput<typeof RpcUrlSchema>;

const ChainEntries = v.strictObject({
  chain_id: positiveInt,
  slug: nonEmpty,
  name: nonEmpty,
  /** each a URL, or `{url, max_requests_per_second, max_concurrency, max_block_range, batch_size}` */
  rpc_urls: v.optional(v.array(RpcUrlSchema), []),
  finality_blocks: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 12),
  block_time_seconds: v.optional(v.pipe(v.number(), v.minValue(0))),
  /**
   * the oldest history read: a block number or an ISO instant; older blocks and hours are skipped
   * (what a pruned, non-archive RPC needs: it serves no state at older blocks)
   */
  history_from: v.optional(
    v.union(
      [v.pipe(v.number(), v.integer(), v.minValue(0)), v.pipe(v.string(), v.isoTimestamp())],
      'Expected a block number or an ISO instant such as "2025-01-01T00:00:00Z"',
    ),
  ),
});

type ChainEntriesOutput = v.InferOutput<typeof ChainEntries>;

const ChainSchema = v.pipe(
  ChainEntries,
  // the URLs stay where every reader expects them (strings); the entries as given, budgets and all, ride along as `rpc`
  v.transform((c): Omit<ChainEntriesOutput, 'rpc_urls'> & { rpc_urls: string[]; rpc?: readonly RpcUrlEntry[] } => ({
    ...c,
    rpc_urls: c.rpc_urls.map((e) => (typeof e === 'string' ? e : e.url)),
    rpc: c.rpc_urls,
  })),
);

const TokenRefSchema = v.strictObject({
  address,
  decimals: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(36)),
  symbol: nonEmpty,
});

const StrategySchema = v.strictObject({
  id: nonEmpty,
  name: nonEmpty,
  description: nullableString,
  short_description: nullableString,
  display_rank: v.optional(v.pipe(v.number(), v.integer())),
});

const GroupSchema = v.strictObject({
  id: nonEmpty,
  slug: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]*$/, 'Expected a lowercase slug')),
  name: nonEmpty,
  is_stable: v.optional(v.boolean(), false),
  deployment_date: v.optional(v.nullable(v.pipe(v.string(), v.isoDate()))),
  description: nullableString,
  short_description: nullableString,
  featured_rank: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
});

const decimalString = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform((x) => (typeof x === 'number' ? String(x) : x)),
  v.regex(/^\d+(\.\d+)?$/, 'Expected a non-negative decimal number, e.g. "1.0001"'),
);
const timeoutMs = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(600_000)), 10_000);
const headers = v.optional(v.record(v.string(), v.string()), {});

/** USD price providers (DESIGN §6.3); the first provider to write a token-hour wins. */
const PriceProviderSchema = v.variant('kind', [
  v.strictObject({
    kind: v.literal('chainlink'),
    /** the chain the aggregators live on (listed in "chains") */
    chain_id: positiveInt,
    feeds: v.pipe(
      v.array(
        v.strictObject({
          /** the token priced (on `token_chain_id`, default the feed's chain) */
          token: address,
          aggregator: address,
          token_chain_id: v.optional(positiveInt),
        }),
      ),
      v.minLength(1),
    ),
    /** first block to scan for AnswerUpdated; default the earliest start_block of vaults on the chain, else 0 */
    start_block: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    /** an hour gets no row when the newest answer is older than this */
    max_age_seconds: v.optional(positiveInt, 172_800),
  }),
  v.strictObject({
    kind: v.literal('http'),
    /** DefiLlama coins API ("defillama") or CoinGecko's ("coingecko") */
    format: v.optional(v.picklist(['defillama', 'coingecko']), 'defillama'),
    base_url: v.optional(v.pipe(v.string(), v.url())),
    headers,
    timeout_ms: timeoutMs,
    /** tokens to price; default every registry numeraire */
    tokens: v.optional(
      v.array(
        v.strictObject({
          chain_id: positiveInt,
          address,
          /** the API's coin id (CoinGecko id, or a DefiLlama key like "coingecko:usd-coin") */
          id: v.optional(nonEmpty),
        }),
      ),
    ),
    /** DefiLlama chain names by chain id where they differ from the chain's slug */
    chain_names: v.optional(v.record(v.string(), nonEmpty), {}),
    /** a price observed this far from an hour still counts for it */
    tolerance_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3600)), 1800),
    /** the longest history backfilled for a token with none stored */
    backfill_days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3650)), 365),
  }),
  v.strictObject({
    kind: v.literal('static'),
    prices: v.array(v.strictObject({ chain_id: positiveInt, address, usd: decimalString })),
  }),
  v.strictObject({ kind: v.literal('demo') }),
]);

/** External TVL sources (DESIGN §4.5), read on `schedules.prices`; a failing one keeps its last good value. */
const TvlSourceSchema = v.variant('kind', [
  v.strictObject({
    id: nonEmpty,
    label: nonEmpty,
    kind: v.literal('http'),
    url: v.pipe(v.string(), v.url()),
    /** where the USD number is in the JSON body: dot-separated keys and array indexes, e.g. "data.tvl" or "0.usd"; empty for the body itself */
    path: v.optional(v.string(), ''),
    headers,
    timeout_ms: timeoutMs,
  }),
  v.strictObject({ id: nonEmpty, label: nonEmpty, kind: v.literal('static'), usd: decimalString }),
]);

const cron = v.pipe(v.string(), v.minLength(1));

/** The vault types a configuration may name: the families' (families/index.ts VAULT_TYPES). */
export type VaultTypes = readonly [string, ...string[]];

/** A registry vault; `vault_type` one of the families' (the caller names them, see `configSchema`). */
const vaultSchema = (vaultTypes: VaultTypes) =>
  v.strictObject({
    chain_id: positiveInt,
    address,
    vault_type: v.picklist(vaultTypes),
    name: nonEmpty,
    symbol: nonEmpty,
    numeraire_token: TokenRefSchema,
    group_id: nullableString,
    is_primary: v.optional(v.boolean(), false),
    strategy_id: nullableString,
    visibility: v.optional(v.picklist(['visible', 'hidden', 'disabled']), 'visible'),
    listed_at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
    start_block: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    provisioner: v.optional(address),
    fee_calculator: v.optional(address),
    definition: v.optional(v.record(v.string(), v.unknown()), {}),
  });

/**
 * The configuration's schema. The vault types it accepts are the families' table, and
 * families/ sits above common/ (imports run down the pipeline), so the caller names them:
 * the CLI passes VAULT_TYPES, and an unknown type fails here, at start, like any bad key.
 */
export const configSchema = (vaultTypes: VaultTypes) =>
  v.strictObject({
    /** an editor's pointer to the JSON Schema (docs/config.schema.json); ignored */
    $schema: v.optional(v.string()),
    db: v.optional(nonEmpty, 'data/vaultd.duckdb'),
    server: v.optional(
      v.strictObject({
        host: v.optional(nonEmpty, '0.0.0.0'),
        port: v.optional(port, 8080),
        /** proxies whose X-Forwarded-For names the client (IPs or CIDR blocks, e.g. "10.0.0.0/8"); none by default */
        trusted_proxies: v.optional(v.array(v.pipe(v.string(), v.check(isAddressOrCidr, 'must be an IP address or a CIDR block'))), []),
        /**
         * "uws" (default, fastest); "node" serves HTTP/1.0 (nginx's default proxy_pass) and answers
         * malformed requests at once (400/431/414), at about twice the CPU per request
         */
        transport: v.optional(v.picklist(['uws', 'node'], 'must be "uws" or "node"'), 'uws'),
        /** false: /metrics answers only a request with a valid API key (401 otherwise), whatever "auth.anonymous" says */
        metrics_public: v.optional(v.boolean(), true),
      }),
      {},
    ),
    auth: v.optional(v.strictObject({ anonymous: v.optional(v.boolean(), true) }), {}),
    rate_limits: v.optional(
      v.strictObject({
        anonymous_per_minute: v.optional(positiveInt, 60),
        keyed_per_minute: v.optional(positiveInt, 600),
      }),
      {},
    ),
    chains: v.optional(v.array(ChainSchema), []),
    registry: v.optional(
      v.strictObject({
        strategies: v.optional(v.array(StrategySchema), []),
        groups: v.optional(v.array(GroupSchema), []),
        vaults: v.optional(v.array(vaultSchema(vaultTypes)), []),
      }),
      {},
    ),
    prices: v.optional(v.strictObject({ providers: v.optional(v.array(PriceProviderSchema), []) }), {}),
    tvl_sources: v.optional(v.array(TvlSourceSchema), []),
    schedules: v.optional(
      v.strictObject({
        ingest: v.optional(cron, '*/15 * * * * *'),
        prices: v.optional(cron, '0 */5 * * * *'),
      }),
      {},
    ),
    /** the service level objectives /health/slo reports the live figures against (DESIGN §11.9) */
    slo: v.optional(
      v.strictObject({
        /** the newest data may be at most this old (seconds) */
        freshness_seconds: v.optional(positiveInt, 7200),
        /** every route group's 99th-percentile time to build a response, in milliseconds */
        latency_p99_ms: v.optional(v.pipe(v.number('must be a number'), v.gtValue(0, 'must be more than 0')), 50),
        /** the share of requests answered without a 5xx; 1 − this is the error budget */
        availability: v.optional(
          v.pipe(v.number('must be a number'), v.gtValue(0, 'must be more than 0'), v.ltValue(1, 'must be less than 1 (1 leaves no error budget)')),
          0.999,
        ),
      }),
      {},
    ),
    /** the live feed, GET /v1/stream and /v1/stream/sse (DESIGN §11.7) */
    stream: v.optional(
      v.strictObject({
        max_topics_per_connection: v.optional(positiveInt, 50),
        /** open streams per client IP (anonymous) */
        max_connections_per_ip: v.optional(positiveInt, 20),
        /** open streams per API key (a key lifts the per-IP limit, as on REST) */
        max_connections_per_key: v.optional(positiveInt, 200),
        /** a WebSocket silent this long is closed; pings keep a live one open */
        idle_timeout_seconds: v.optional(
          v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(8, 'must be at least 8'), v.maxValue(960, 'must be at most 960')),
          120,
        ),
        /** generations of messages kept per topic for `since` (older: one resync) */
        replay_generations: v.optional(
          v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'), v.maxValue(1024, 'must be at most 1024')),
          64,
        ),
      }),
      {},
    ),
    /** the demo world under `vaultd serve` (no chains configured) */
    recompute: v.optional(
      v.strictObject({
        /**
         * MiB of vault series and events `recompute --full` holds at once: it reads and computes the
         * vaults in passes of at most this many (engine/persist/recomputeInPasses.ts); 112 bytes a
         * snapshot, 149 an event
         */
        pass_memory_mb: v.optional(v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(16, 'must be at least 16')), 1024),
      }),
      {},
    ),
    demo: v.optional(
      v.strictObject({
        /** real seconds per simulated hour: 3600 follows the wall clock; less runs the world ahead (DESIGN §11.6) */
        hour_seconds: v.optional(v.pipe(v.number('must be a number'), v.minValue(0.1, 'must be at least 0.1'), v.maxValue(3600, 'must be at most 3600')), 3600),
      }),
      {},
    ),
  });

type ConfigSchema = ReturnType<typeof configSchema>;
export type ConfigInput = v.InferInput<ConfigSchema>;
export type Config = v.InferOutput<ConfigSchema> & {
  /** the file the config came from, or null for defaults only */
  readonly source: string | null;
  readonly log_level: string;
};

/** The flags every command may pass that override config keys. */
export interface ConfigOverrides {
  config?: string | undefined;
  db?: string | undefined;
  port?: number | undefined;
  host?: string | undefined;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function configError(message: string, details?: unknown): VaultdError {
  return new VaultdError('CONFIG_INVALID', message, { details });
}

/** Validate a parsed config object; `origin` names where it came from in messages. */
export function parseConfig(vaultTypes: VaultTypes, input: unknown, origin: string): v.InferOutput<ConfigSchema> {
  const schema = configSchema(vaultTypes);
  const result = v.safeParse(schema, input ?? {});
  if (result.success) return result.output;
  // a typo shows as an unknown key and a missing one: name the unknown key, it is what was typed
  const first = configIssues(schema, input, result.issues)[0]!;
  throw configError(`invalid configuration in ${origin}: ${first.text}`, { key: first.key });
}

export interface ConfigIssue {
  /** the dot path of the key, e.g. "chains.0.rpc_urls.0" */
  key: string;
  /** `unknown key "…"; did you mean "…"?` or `"key": what is wrong` */
  text: string;
}

/** Every way `input` breaks the schema (`vaultd config check` lists them all), unknown keys first; [] when valid. */
export function validateConfig(vaultTypes: VaultTypes, input: unknown): ConfigIssue[] {
  const schema = configSchema(vaultTypes);
  const result = v.safeParse(schema, input ?? {});
  return result.success ? [] : configIssues(schema, input, result.issues);
}

function configIssues(schema: ConfigSchema, input: unknown, issues: readonly v.BaseIssue<unknown>[]): ConfigIssue[] {
  const isUnknown = (i: v.BaseIssue<unknown>) => i.type === 'strict_object' && i.expected === 'never';
  const ordered = [...issues.filter(isUnknown), ...issues.filter((i) => !isUnknown(i))];
  return ordered.map((issue) => {
    const key = v.getDotPath(issue) ?? '(root)';
    if (!isUnknown(issue)) return { key, text: `"${key}": ${issue.message}` };
    const keys = issue.path!.map((p) => p.key);
    const near = closest(String(keys.at(-1)), allowedKeys(schema as unknown as AnySchema, keys.slice(0, -1), input));
    return { key, text: `unknown key "${key}"${near ? `; did you mean "${near}"?` : ''}` };
  });
}

type AnySchema = { type: string; entries?: Record<string, AnySchema>; wrapped?: AnySchema; item?: AnySchema; options?: AnySchema[]; value?: AnySchema };

/** The keys the schema allows for the object at `path` of `input` (through optionals, arrays, unions). */
function allowedKeys(schema: AnySchema, path: unknown[], input: unknown): string[] {
  let s: AnySchema | undefined = schema;
  let value: unknown = input;
  const unwrap = (x: AnySchema | undefined): AnySchema | undefined => {
    while (x?.wrapped) x = x.wrapped;
    if (x?.options) {
      // a variant: the option whose literal fields match the value (e.g. kind), else any with entries
      const match = x.options.find(
        (o) =>
          o.entries &&
          Object.entries(o.entries).every(
            ([k, e]) => e.type !== 'literal' || (e as { literal?: unknown }).literal === (value as Record<string, unknown> | undefined)?.[k],
          ),
      );
      return unwrap(match ?? x.options.find((o) => o.entries));
    }
    return x;
  };
  for (const key of path) {
    s = unwrap(s);
    value = (value as Record<string | number, unknown> | undefined)?.[key as string];
    s = typeof key === 'number' ? s?.item : (s?.entries?.[key as string] ?? s?.value);
  }
  return Object.keys(unwrap(s)?.entries ?? {});
}

/** The allowed key nearest to a typo (edit distance at most a third of its length, min 2). */
export function closest(typo: string, keys: string[]): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(typo.length / 3)) + 1;
  for (const k of keys) {
    const d = editDistance(typo.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

export function readConfigFile(file: string): unknown {
  if (!existsSync(file)) throw configError(`config file "${file}" does not exist; pass an existing JSON file to --config`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw configError(`config file "${file}" cannot be read: ${(cause as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw configError(`config file "${file}" is not valid JSON: ${(cause as Error).message}`);
  }
}

function envPort(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.VAULTD_PORT;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw configError(`invalid environment variable VAULTD_PORT: "${raw}" is not a port number (0-65535)`, { key: 'VAULTD_PORT' });
  }
  return Number(raw);
}

/** Load the effective configuration. Pure over its inputs: pass `env` in tests. */
export function loadConfig(vaultTypes: VaultTypes, overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const file = overrides.config ?? (env.VAULTD_CONFIG || undefined);
  const parsed = parseConfig(vaultTypes, file ? readConfigFile(file) : {}, file ? `"${file}"` : 'defaults');

  const db = overrides.db ?? (env.VAULTD_DB || undefined) ?? parsed.db;
  const host = overrides.host ?? (env.VAULTD_HOST || undefined) ?? parsed.server.host;
  const port = overrides.port ?? envPort(env) ?? parsed.server.port;
  const logLevel = env.VAULTD_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw configError(`invalid environment variable VAULTD_LOG_LEVEL: "${logLevel}"; use one of ${LOG_LEVELS.join(', ')}`, {
      key: 'VAULTD_LOG_LEVEL',
    });
  }
  const config: Config = {
    ...parsed,
    db,
    server: { ...parsed.server, host, port },
    source: file ?? null,
    log_level: logLevel,
  };
  return deepFreeze(config);
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const value of Object.values(o)) deepFreeze(value);
    Object.freeze(o);
  }
  return o;
}

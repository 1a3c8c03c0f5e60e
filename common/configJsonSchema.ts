// The configuration's JSON Schema (docs/config.schema.json), generated from the valibot schema
// the program validates with (config.ts), so editors check a file as vaultd will. Descriptions
// are added by key path; a test holds the committed file to this output and every path below
// to a key of the schema.
import { toJsonSchema, type JsonSchema } from '@valibot/to-json-schema';
import { configSchema, type VaultTypes } from './config.js';

/** Where the schema is published, from the repository's root. */
export const CONFIG_SCHEMA_FILE = 'docs/config.schema.json';

/** Key paths (`[]` for "every item of the array") and what they do. */
export const CONFIG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '': 'vaultd configuration (README "Configuration"). Every key is optional; precedence: defaults < this file < environment < flags.',
  $schema: 'The JSON Schema of this file, for editors (e.g. "./docs/config.schema.json"); ignored by vaultd.',
  db: 'The DuckDB database file. Only the default path gets the demo world when it is empty (or `vaultd serve --demo`).',
  server: 'The HTTP server.',
  'server.host': 'The address to listen on: 127.0.0.1 for this machine only, 0.0.0.0 for every interface.',
  'server.port': 'The TCP port to listen on; 0 takes any free port.',
  'server.trusted_proxies':
    'Load balancers in front of vaultd (IP addresses or CIDR blocks): from them, the nearest X-Forwarded-For hop that is not a trusted proxy is the client.',
  'server.transport': '"uws" (uWebSockets.js, fastest) or "node" (node:http: serves HTTP/1.0, e.g. nginx\'s default proxy_pass).',
  'server.metrics_public': 'false: /metrics answers only a request with a valid API key (401 otherwise), whatever auth.anonymous says.',
  auth: 'Who may call /v1.',
  'auth.anonymous': 'false: every /v1 request needs an API key (`vaultd keys create`).',
  rate_limits: 'Token buckets per minute: anonymous callers per IP, keys per key.',
  'rate_limits.anonymous_per_minute': 'Requests a minute per IP without a key (the upstream API allows 60).',
  'rate_limits.keyed_per_minute': 'Requests a minute per API key.',
  chains: 'The EVM chains to index (with registry.vaults) and to read Chainlink feeds on.',
  'chains[].chain_id': 'The EIP-155 chain id; every rpc_urls entry must answer it.',
  'chains[].slug': "A short lowercase name (DefiLlama's chain name by default, e.g. ethereum, base, arbitrum).",
  'chains[].name': 'The display name.',
  'chains[].rpc_urls':
    'JSON-RPC endpoints, tried in order: each a URL, or {url, max_requests_per_second, max_concurrency, max_block_range, batch_size} (its budget). A URL on this machine has no budget unless given; any other defaults to 10 requests/s, 4 in flight, 2,000-block eth_getLogs spans, batches of 10 (free tiers). Hourly state is read at past blocks: use an archive node for history, or set history_from.',
  'chains[].finality_blocks': 'Blocks behind the head that are indexed (reorgs deeper than this are rolled back when seen).',
  'chains[].block_time_seconds': "The chain's block time, a hint for the hourly block search.",
  'chains[].history_from':
    'The oldest history read, a block number or an ISO instant: older blocks and hours are skipped for every vault and Chainlink feed of the chain. Set it when the RPC is not an archive node (it serves no state at older blocks).',
  registry: 'The vaults to serve, their groups (deployments of one logical vault) and strategies.',
  'registry.vaults': 'One entry per deployed vault contract.',
  'registry.vaults[].address': 'The vault contract (any case; served lowercase).',
  'registry.vaults[].vault_type': "The vault's family: what the indexer reads and how its unit price is computed.",
  'registry.vaults[].numeraire_token': 'The token the vault accounts in (its decimals scale every amount).',
  'registry.vaults[].group_id': 'The group (registry.groups[].id) whose deployments this vault is one of.',
  'registry.vaults[].strategy_id': 'The strategy (registry.strategies[].id) it follows.',
  'registry.vaults[].visibility': 'visible (listed), hidden (served, not listed) or disabled (not served).',
  'registry.vaults[].start_block':
    'The first block indexed: the deployment block, or later. Omitted: vaultd finds the deployment block (a bisection on eth_getCode, cached in the database; `vaultd chains` lists it).',
  'registry.vaults[].provisioner': 'aera_v3: the Provisioner whose deposit and redeem requests are indexed.',
  'registry.vaults[].fee_calculator': "aera_v3: the price-and-fee calculator that publishes the vault's unit price.",
  prices: 'USD prices of the numeraires.',
  'prices.providers': 'Price providers in order of preference: the first to write a token-hour wins.',
  tvl_sources: 'External TVL sources added to /v1/tvl (a failing one keeps its last good value).',
  schedules: 'When the jobs run (cron with seconds).',
  'schedules.ingest': 'Chain ingest rounds (and the demo world extension), default every 15 s.',
  'schedules.prices': 'Price and TVL-source rounds, default every 5 min.',
  stream: 'The live feed (GET /v1/stream WebSocket and /v1/stream/sse), DESIGN §11.7.',
  'stream.max_topics_per_connection': 'Topics one stream may subscribe to at once (default 50).',
  'stream.max_connections_per_ip': 'Open streams per client IP for anonymous callers (default 20).',
  'stream.max_connections_per_key': 'Open streams per API key (default 200).',
  'stream.idle_timeout_seconds': 'A WebSocket silent this long is closed; the server pings live ones (default 120, 8 to 960).',
  'stream.replay_generations': 'Generations of messages kept per topic for `since` replays; older asks get one resync (default 64).',
  recompute: 'Batch recomputes (`vaultd recompute`).',
  'recompute.pass_memory_mb':
    'MiB of vault series and events `recompute --full` holds at once: it reads and computes the vaults in passes of at most this many (112 bytes a snapshot, 149 an event; default 1024, at least 16).',
  demo: 'The demo world under `vaultd serve` when no chains are configured.',
  'demo.hour_seconds':
    'Real seconds per simulated hour of the living demo world: 3600 (default) follows the wall clock; less runs the world ahead, one hour per round.',
};

type Node = JsonSchema & { properties?: Record<string, Node>; items?: Node; anyOf?: Node[]; oneOf?: Node[]; description?: string };

/** The JSON Schema of a configuration file (draft 2020-12), what is written to docs/config.schema.json. */
export function configJsonSchema(vaultTypes: VaultTypes): JsonSchema {
  const schema = toJsonSchema(configSchema(vaultTypes), {
    target: 'draft-2020-12',
    // a file is input: defaults are shown, nothing is required that has one
    typeMode: 'input',
    errorMode: 'throw',
    // a `check` or `transform` has no JSON Schema form: its message says what it checks
    overrideAction: ({ valibotAction, jsonSchema }) => {
      const message = (valibotAction as { message?: unknown }).message;
      if (valibotAction.type === 'check' && typeof message === 'string')
        return { ...jsonSchema, description: `${message.charAt(0).toUpperCase()}${message.slice(1)}.` };
      if (valibotAction.type === 'transform') return jsonSchema;
      return undefined;
    },
  }) as Node;
  for (const [path, description] of Object.entries(CONFIG_DESCRIPTIONS)) {
    const node = at(schema, path);
    if (node) node.description = description;
  }
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'vaultd configuration', ...schema };
}

/** The schema node of a key path (through arrays' items; undefined when the path names no key). */
export function at(schema: JsonSchema, path: string): Node | undefined {
  let node: Node | undefined = schema as Node;
  if (path === '') return node;
  for (const part of path.split('.')) {
    const arrays = part.endsWith('[]');
    node = node?.properties?.[arrays ? part.slice(0, -2) : part];
    if (arrays) node = node?.items;
  }
  return node;
}

// Every `vaultd` command, described once (DESIGN §2): its flags with their types, defaults and
// formats, its usage forms and examples. The parser reads its flags from here and the help is
// written from here. A new command is one entry in COMMAND_SPECS (and its loader in main.ts,
// which the type of COMMAND_SPECS' names makes the compiler ask for).
import { parseConfig } from '../common/config.js';
import { VAULT_TYPES } from '../families/index.js';
import { DEMO_DEFAULTS } from '../jobs/demo/params.js';
import { defineCommand, type FlagSpec } from './commandSpec.js';

/** The configuration's built-in defaults, shown as the flags' defaults. */
const DEFAULTS = parseConfig(VAULT_TYPES, {}, 'defaults');

const db = {
  type: 'string',
  value: 'PATH',
  does: 'the DuckDB database file',
  default: `${DEFAULTS.db} (config "db")`,
  env: 'VAULTD_DB',
} as const satisfies FlagSpec;
const config = {
  type: 'string',
  value: 'FILE',
  does: 'the JSON configuration file (README "Configuration"); every key is optional',
  default: 'none (the built-in defaults)',
  env: 'VAULTD_CONFIG',
} as const satisfies FlagSpec;
const port = {
  type: 'string',
  value: 'N',
  does: 'the TCP port to listen on; 0 takes any free port (the "listening" log line names it)',
  int: [0, 65535],
  default: `${DEFAULTS.server.port} (config "server.port")`,
  env: 'VAULTD_PORT',
} as const satisfies FlagSpec;
const host = {
  type: 'string',
  value: 'H',
  does: 'the address to listen on',
  format: 'an IP address of this machine: 127.0.0.1 for this machine only, 0.0.0.0 for every interface',
  default: `${DEFAULTS.server.host} (config "server.host")`,
  env: 'VAULTD_HOST',
} as const satisfies FlagSpec;

export const DEMO = defineCommand({
  name: 'demo',
  summary: 'create (or with --force replace) the deterministic demo world in the database',
  description:
    'Builds the demo world: 4 chains, real deployment names and addresses, every vault type, generated wallets with ' +
    'hourly history (the raw tables; serving or `vaultd recompute` derives the rest). The same seed and --now give ' +
    'byte-identical tables, and a world is prefix-stable: the same seed and --start built to a later --now holds every ' +
    'row of the one built to an earlier --now (the time-travel guarantee of `as_of`). ' +
    'The world is built in a temporary file beside the database and renamed into place, so an ' +
    'interrupted build leaves nothing behind. ' +
    'Prints a progress bar on a terminal (JSON progress lines otherwise) and a one-line summary.',
  flags: {
    db,
    config,
    seed: {
      type: 'string',
      value: 'N',
      does: 'the random seed: the same seed and flags make the same world',
      int: [0, 2 ** 32 - 1],
      default: String(DEMO_DEFAULTS.seed),
    },
    now: {
      type: 'string',
      value: 'ISO',
      does: 'the instant the history ends (rows after it are not written; it may fall inside an hour)',
      format: 'an ISO 8601 date or date-time, UTC unless it names a zone, e.g. 2026-01-31 or 2026-01-31T12:30:00Z',
      default: 'the last full hour',
    },
    start: {
      type: 'string',
      value: 'ISO',
      does: 'the first simulated hour (the world is fixed by --seed and --start; --now only says how far it is built)',
      format: 'an ISO 8601 date or date-time on the hour, e.g. 2025-04-01',
      default: '--days before --now, on the hour',
    },
    vaults: {
      type: 'string',
      value: 'N',
      does: 'generate this many vaults instead of the curated set (scale worlds)',
      int: [1, 100_000],
      default: 'the curated set',
    },
    wallets: { type: 'string', value: 'N', does: 'how many wallets to generate', int: [1, 10_000_000], default: String(DEMO_DEFAULTS.wallets) },
    days: {
      type: 'string',
      value: 'N',
      does: "the world's span: days of hourly history before --now, or after --start over which the vaults are listed",
      int: [1, 3650],
      default: String(DEMO_DEFAULTS.days),
    },
    force: {
      type: 'boolean',
      does: 'replace the world the database already holds (without it: refuse, exit 2); refused while a `vaultd serve` serves the file',
    },
    'even-if-served': {
      type: 'boolean',
      does: 'with --force: replace the file even while a server serves it (its API keys go with the old file; a server with jobs reloads the new world at its next round, one with --no-jobs keeps serving the old one)',
    },
  },
  forms: [{ flags: ['db', 'seed', 'now', 'start', 'vaults', 'wallets', 'days', 'force', 'even-if-served', 'config'] }],
  examples: [
    { run: 'demo', does: `the default world into ${DEFAULTS.db}` },
    { run: 'demo --db data/small.duckdb --seed 7 --now 2026-06-01 --days 30 --wallets 40', does: 'a small world, the same on every machine' },
    { run: 'demo --db data/bench.duckdb --vaults 1000 --wallets 100000 --days 730', does: 'the benchmark world' },
    {
      run: 'demo --db data/past.duckdb --seed 7 --start 2025-04-01 --now 2026-03-31T12:30:00Z',
      does: 'the same world as any later --now of seed 7 and that start, built to a past instant',
    },
  ],
});

export const SERVE = defineCommand({
  name: 'serve',
  summary: 'serve the API, the explorer and the docs; runs the scheduled jobs',
  description:
    'Serves the read-only HTTP API, the explorer pages (/) and the API reference (/docs) from the database. An empty ' +
    `database at the default path (${DEFAULTS.db}, what \`npm start\` serves) first gets the demo world; any other ` +
    'path gets it only with --demo, and a configuration that lists chains or vaults never does: a mistyped --db is ' +
    'one line and exit 2, not a fake world. Unless --no-jobs, the ingest, prices and ' +
    'TVL-source jobs run on their schedules (config "schedules") and each round publishes a new snapshot. Every ' +
    'publish is also written as snapshot files, so a restart on unchanged inputs serves them without recomputing. ' +
    'With --snapshot DIR it is a stateless reader of what a writer published into DIR. Prints one line for people ' +
    'on stdout once it listens; logs are JSON lines on stderr. SIGTERM or SIGINT stop it cleanly (exit 0).',
  flags: {
    db,
    port,
    host,
    config,
    'no-jobs': { type: 'boolean', does: 'run no scheduled jobs: serve the database as it is' },
    demo: {
      type: 'boolean',
      does: 'build the demo world into --db when it holds none (needed for any path but the default; refused with chains or vaults configured)',
    },
    'publish-dir': {
      type: 'string',
      value: 'DIR',
      does: 'also write every published snapshot into DIR, for restarts and `serve --snapshot` readers',
      default: '<db>.snapshot beside the database',
    },
    snapshot: {
      type: 'string',
      value: 'DIR',
      does: 'serve, as a stateless reader, the snapshot a writer publishes into DIR (no database, no jobs; takes no --db, --no-jobs or --publish-dir)',
      default: 'none (serve the database)',
    },
  },
  forms: [{ flags: ['db', 'port', 'host', 'config', 'no-jobs', 'publish-dir', 'demo'] }, { required: ['snapshot'], flags: ['port', 'host', 'config'] }],
  examples: [
    { run: 'serve', does: `what \`npm start\` runs: ${DEFAULTS.db} (the demo world when empty) on port ${DEFAULTS.server.port}` },
    { run: 'serve --db /tmp/try.duckdb --demo', does: 'the demo world in a file of its own' },
    { run: 'serve --db data/vaults.duckdb --config vaultd.json --host 127.0.0.1 --port 9090', does: 'a configured world, on loopback only' },
    { run: 'serve --publish-dir /srv/vaultd/snapshot', does: 'a writer whose snapshots readers serve' },
    { run: 'serve --snapshot /srv/vaultd/snapshot --port 8081', does: 'a reader of that directory' },
  ],
});

export const PUBLISH = defineCommand({
  name: 'publish',
  summary: "write the database's snapshot into a directory for `serve --snapshot` readers",
  description:
    'Recomputes the snapshot from the database and writes it into DIR as content-addressed files plus a manifest, ' +
    'with the same identity (generation, refreshed_at, ETags) `vaultd serve` publishes on that database, its API ' +
    'keys and its cursor secret. Readers (`vaultd serve --snapshot DIR`) pick it up atomically.',
  flags: {
    out: { type: 'string', value: 'DIR', does: 'the directory to write the snapshot into (created when missing)', default: 'none (required)' },
    db,
    config,
  },
  forms: [{ required: ['out'], flags: ['db', 'config'] }],
  examples: [{ run: 'publish --db data/vaultd.duckdb --out /srv/vaultd/snapshot', does: 'publish for the readers of /srv/vaultd/snapshot' }],
});

export const RECOMPUTE = defineCommand({
  name: 'recompute',
  summary: 'recompute every derived table and a new snapshot; prints the time of each stage',
  description:
    'Batch recompute of the derived tables (vault_metrics_hourly, positions, activity), written in one transaction, ' +
    'and of a new snapshot. Prints the time of each stage and a summary line. Never creates a database. With --full ' +
    '--shard I/N --out DIR it computes only shard I of N of a full recompute into Parquet files and a manifest in DIR ' +
    '(shards may run on different machines, from the database or a `vaultd export` directory); --merge DIR checks ' +
    'that DIR holds shards 0..N-1 of one run on the raw data the database holds and publishes their result, the same ' +
    'files `vaultd publish` writes; a missing or mismatched shard is refused (exit 2) with what to run.',
  flags: {
    db,
    config,
    full: { type: 'boolean', does: 'rewrite every hourly metric row (without it: only the hours past the last one written)' },
    shard: {
      type: 'string',
      value: 'I/N',
      does: 'with --full and --out: compute only shard I of N (vaults and wallets by a stable hash) into Parquet files and a manifest in DIR; writes nothing to the database',
      format: 'shard I (from 0) of N, 1 ≤ N ≤ 9999, e.g. 0/4',
      default: 'none (the whole recompute, into the database)',
    },
    out: {
      type: 'string',
      value: 'DIR',
      does: "with --shard: the directory to write the shard's files into; with --merge: the snapshot directory to publish into",
      default: "none (required with --shard); with --merge: the database's snapshot directory, PATH.snapshot",
    },
    from: {
      type: 'string',
      value: 'DIR',
      does: 'with --shard: read the raw tables from a `vaultd export` directory instead of the database',
      default: 'none (the database)',
    },
    merge: {
      type: 'string',
      value: 'DIR',
      does: "check that DIR holds every shard 0..N-1 of one run on the database's raw data, then publish their result as `vaultd publish` would (into --out, default the database's snapshot directory `serve` starts from)",
      default: 'none (no merge)',
    },
  },
  forms: [
    { flags: ['db', 'full', 'config'] },
    { args: '--full', required: ['shard', 'out'], flags: ['db', 'from', 'config'] },
    { required: ['merge'], flags: ['out', 'db', 'config'] },
  ],
  examples: [
    { run: 'recompute', does: 'append the new hours, rewrite positions and activity' },
    { run: 'recompute --db data/bench.duckdb --full', does: 'rewrite everything' },
    { run: 'recompute --full --shard 2/4 --out shards/', does: 'shard 2 of 4 into shards/ (run 0/4 … 3/4, on one box or many)' },
    { run: 'recompute --merge shards/ --out /srv/vaultd/snapshot', does: 'check the four shards and publish their result for `serve --snapshot` readers' },
  ],
});

export const EXPORT = defineCommand({
  name: 'export',
  summary: 'write the raw tables as Parquet files plus a manifest, for object storage and sharded recomputes',
  description:
    "Writes every table a snapshot is built from (registry and raw facts, ingest status, and the price providers' " +
    'last errors; no API keys or secrets) into DIR as one Parquet file per table, 128-bit amounts as exact decimal ' +
    "text, plus export.json with each file's rows and SHA-256 and the data's stamp. `vaultd recompute --full " +
    '--shard I/N --from DIR` reads it instead of a database. Never creates a database.',
  flags: {
    db,
    out: { type: 'string', value: 'DIR', does: 'the directory to write the files into (created when missing)', default: 'none (required)' },
    config,
  },
  forms: [{ required: ['out'], flags: ['db', 'config'] }],
  examples: [{ run: 'export --db data/vaultd.duckdb --out raw/', does: 'the raw tables in raw/, ready to copy to a bucket' }],
});

export const SNAPSHOT = defineCommand({
  name: 'snapshot',
  summary: 'check every file of a published snapshot directory against its manifest',
  description:
    "Reads every file the manifest of DIR names, whole, and checks its size, its SHA-256 (the file's name) and, for " +
    'the column files, the CRC-32 the manifest records: what a reader checks as it loads them. Prints a summary and ' +
    'exits 0 when all match; otherwise names the first bad file and exits 1 (2 when DIR has no manifest).',
  flags: {},
  forms: [{ args: 'verify DIR', flags: [] }],
  positionals: [
    { name: 'verify', does: 'the one action: check the files' },
    { name: 'DIR', does: 'a snapshot directory (`vaultd publish --out DIR`, `serve --publish-dir DIR`)' },
  ],
  examples: [{ run: 'snapshot verify /srv/vaultd/snapshot', does: 'check the snapshot readers of that directory serve' }],
});

export const INGEST = defineCommand({
  name: 'ingest',
  summary: 'ingest the configured chains, then USD prices and external TVL sources',
  description:
    'Ingests the configured chains ("chains" and "registry.vaults" in the config file), then USD prices ' +
    '("prices.providers") and external TVL sources ("tvl_sources"). Without --once, chains run on ' +
    '"schedules.ingest" and prices on "schedules.prices" until SIGTERM. One summary line per chain, provider and ' +
    'source on stdout; progress as JSON log lines on stderr.',
  flags: {
    config,
    once: {
      type: 'boolean',
      does: 'run one round of each job and exit (exit 1 if a chain stalled or a price provider failed)',
    },
    db,
  },
  examples: [
    { run: 'ingest --config vaultd.json --once', does: 'one round of every job, then exit' },
    { run: 'ingest --config vaultd.json --db data/vaults.duckdb', does: 'keep ingesting on the schedules' },
  ],
});

/** `vaultd devnet`'s database: its own, as it is replaced each run. */
export const DEVNET_DB = 'data/devnet.duckdb';

export const DEVNET = defineCommand({
  name: 'devnet',
  summary: 'a local EVM chain with our vault contracts, ingested over JSON-RPC and served',
  description:
    'Starts a local EVM chain in-process (Hardhat), deploys the vault contracts, simulates 30 days of hourly ' +
    'activity, ingests it through the same indexer a public RPC would feed, and serves the API. Prints the chain, its ' +
    'RPC URL and the config file written for this run (usable with `vaultd ingest --config` and `vaultd config check ' +
    '--probe`; removed at exit unless --write-config names where to keep it). A configuration given with --config or ' +
    'VAULTD_CONFIG sets the rest (server, auth, rate limits, schedules, TVL sources); its chains, registry and prices ' +
    "give way to the devnet's. Needs the development install (`npm ci` in a source checkout).",
  flags: {
    db: { ...db, does: 'the database to ingest into: deleted and created anew each run', default: DEVNET_DB },
    port: { ...port, default: String(DEFAULTS.server.port) },
    config: {
      ...config,
      does: "a configuration for the rest of the run (server, auth, limits, schedules); the devnet's chains, registry and prices replace its own",
    },
    'write-config': {
      type: 'string',
      value: 'FILE',
      does: "write the run's configuration (the devnet's chains, vaults and feeds) to FILE and keep it after the run: a real-world example to start from",
      default: 'a temporary file, removed at exit',
    },
  },
  examples: [
    { run: 'devnet --port 8090', does: 'a fresh devnet served on port 8090' },
    { run: 'devnet --write-config devnet.json', does: 'and keep its configuration in devnet.json' },
  ],
});

export const KEYS = defineCommand({
  name: 'keys',
  summary: 'create, list or revoke API credentials',
  description:
    'Manages API credentials, stored only as SHA-256. `create` prints the secret once, alone on the last line of ' +
    'its output. `list` prints one tab-separated line per key: id, name, tier, created_at, active or revoked. A ' +
    'running server sees a change within its next request. Never creates a database.',
  flags: { db, config },
  forms: [
    { args: 'create NAME', flags: ['db', 'config'] },
    { args: 'list', flags: ['db', 'config'] },
    { args: 'revoke ID', flags: ['db', 'config'] },
  ],
  positionals: [
    { name: 'NAME', does: 'a label for the new key, e.g. "ci bot"' },
    { name: 'ID', does: 'the id `create` printed (key_…)' },
  ],
  examples: [
    { run: 'keys create "ci bot"', does: 'a new key; its secret is the last line' },
    { run: 'keys list --db data/vaults.duckdb', does: 'every key, active or revoked' },
    { run: 'keys revoke key_0123abcd', does: 'revoke that key' },
  ],
});

export const WALLETS = defineCommand({
  name: 'wallets',
  summary: 'wallet addresses known to the store, most active first',
  description: 'Prints the wallet addresses the database knows, one per line, the most active (most events) first. Never creates a database.',
  flags: {
    db,
    config,
    limit: { type: 'string', value: 'N', does: 'print at most N addresses', int: [1, Number.MAX_SAFE_INTEGER], default: 'all' },
  },
  forms: [{ flags: ['db', 'limit', 'config'] }],
  examples: [{ run: 'wallets --limit 5', does: 'the five most active wallets' }],
});

export const CHAINS = defineCommand({
  name: 'chains',
  summary: "each configured vault's chain, address and start block, and whether it was configured or found",
  description:
    'Lists the vaults of the configuration, one a line: chain id, address, start block and where it comes from: ' +
    '"configured" (registry.vaults[].start_block), "found" (its deployment block, found by the first ingest round with a ' +
    'bisection on eth_getCode and cached in the database) or "not yet found" (no ingest round has run since it was added). ' +
    'A chain with `history_from` starts no vault before it. Never creates a database.',
  flags: { db, config },
  forms: [{ flags: ['db', 'config'] }],
  examples: [{ run: 'chains --config vaultd.json', does: 'every vault with its start block' }],
});

export const BACKUP = defineCommand({
  name: 'backup',
  summary: 'a consistent copy of the database file, also while a server serves it',
  description:
    "Copies the database into FILE while other processes use it: with the file open (a server's jobs wait for the " +
    'copy, up to 15 s a job, then retry at their next round), everything is checkpointed into it, copied to a temporary ' +
    'name, synced, opened to check it holds the same rows, and renamed into place. FILE must not exist. To restore, stop ' +
    'the server, put the copy in place of the database file and start `vaultd serve` again: it serves the same snapshot ' +
    '(same ETags). Never creates a database.',
  flags: {
    db,
    out: { type: 'string', value: 'FILE', does: 'the file to write the copy to (must not exist; its folder is created)', default: 'none (required)' },
    config,
  },
  forms: [{ required: ['out'], flags: ['db', 'config'] }],
  examples: [{ run: 'backup --db data/vaultd.duckdb --out backups/vaultd-2026-06-01.duckdb', does: 'a copy, while `vaultd serve` runs on the file' }],
});

export const CONFIG = defineCommand({
  name: 'config',
  summary: 'check a configuration file; with --probe, ask its RPCs, price providers and TVL sources',
  description:
    'Validates the configuration file with the schema every command uses (all of its errors, each naming its key, ' +
    "an unknown key with the nearest known one) and the references between its parts (a vault's chain, group and " +
    "strategy; a Chainlink provider's chain; the schedules), and says which defaults apply (a vault without start_block " +
    'is read from its deployment block, found at the first ingest round). With --probe it also asks every RPC URL for its chain id (another chain is an error), its ' +
    'head, state at an old block (history needs an archive node) and its latency, and every price provider and TVL ' +
    'source for one value. Prints a table; exits 2 when any row is an error, 0 otherwise. The schema is also published ' +
    'as JSON Schema (docs/config.schema.json) for editors.',
  flags: {
    config,
    probe: { type: 'boolean', does: 'also ask every RPC URL, price provider and TVL source (network requests, 10 s each at most)' },
  },
  forms: [{ args: 'check', flags: ['config', 'probe'] }],
  positionals: [{ name: 'check', does: 'the one action: validate the file (and probe with --probe)' }],
  examples: [
    { run: 'config check --config vaultd.json', does: 'validate the file: schema, references, defaults that apply' },
    { run: 'config check --config vaultd.json --probe', does: 'and ask every RPC URL, price provider and TVL source' },
  ],
});

/** Every command, in the order `vaultd help` lists them. */
export const COMMAND_SPECS = [DEMO, SERVE, PUBLISH, RECOMPUTE, INGEST, DEVNET, KEYS, WALLETS, CHAINS, BACKUP, CONFIG, EXPORT, SNAPSHOT] as const;

export type CommandName = (typeof COMMAND_SPECS)[number]['name'];

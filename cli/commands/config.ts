// `vaultd config check [--config FILE] [--probe]`: the configuration file validated with the
// schema every command uses (all of its errors, with did-you-mean), its cross-references
// (common/configCheck.ts), and with --probe every RPC URL, price provider and TVL source asked
// (jobs/evm/probeRpc.ts, jobs/prices/probeSources.ts). A table on stdout; exit 2 on any error.
import { createCommon } from '../../common/common.js';
import { type CheckRow, crossCheckConfig } from '../../common/configCheck.js';
import { closest, loadConfig, readConfigFile, validateConfig, type Config } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { VaultdError } from '../../common/errors.js';
import { createLogger } from '../../common/logger.js';
import { probeRpc } from '../../jobs/evm/probeRpc.js';
import { parseFlags } from '../args.js';
import { CONFIG } from '../commandSpecs.js';

/** How long one probe request may take. */
const PROBE_TIMEOUT_MS = 10_000;

export async function configCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'check') {
    const near = action === undefined ? undefined : closest(action, ['check']);
    throw new VaultdError('USAGE', `config: expected "check", got ${action ? `"${action}"` : 'nothing'}${near ? `; did you mean "${near}"?` : ''}`);
  }
  const { values } = parseFlags(CONFIG, rest, { as: 'config check' });
  const file = values.config ?? (process.env.VAULTD_CONFIG || undefined);
  if (file === undefined) throw new VaultdError('USAGE', 'config check: no configuration file; pass --config FILE or set VAULTD_CONFIG');
  let input: unknown;
  try {
    input = readConfigFile(file);
  } catch (err) {
    // a missing or broken file: one line, under this command's name
    throw err instanceof VaultdError ? new VaultdError(err.code, `config check: ${err.message}`, { cause: err }) : err;
  }
  const issues = validateConfig(VAULT_TYPES, input);
  const rows: CheckRow[] = issues.map((i) => ({ item: i.key, status: 'error', detail: i.text }));
  if (issues.length === 0) {
    const config = loadConfig(VAULT_TYPES, { config: file });
    rows.push({ item: 'schema', status: 'ok', detail: 'every key is known and every value valid' });
    rows.push(...crossCheckConfig(config));
    if (values.probe) rows.push(...(await probe(config)));
  }
  process.stdout.write(`${table(file, rows)}\n`);
  return rows.some((r) => r.status === 'error') ? 2 : 0;
}

/** Every RPC URL, then every price provider and TVL source, asked at once. */
async function probe(config: Config): Promise<CheckRow[]> {
  // the probes' own log lines (a price provider's) would only repeat the table
  const common = createCommon(config, { logger: createLogger(process.env.VAULTD_LOG_LEVEL ? config.log_level : 'silent') });
  try {
    const rpc = config.chains.flatMap((c, i) => {
      const starts = config.registry.vaults.filter((v) => v.chain_id === c.chain_id && v.start_block !== undefined).map((v) => v.start_block!);
      const historyBlock = starts.length > 0 ? Math.max(1, Math.min(...starts)) : 1;
      return c.rpc_urls.map(async (url, j): Promise<CheckRow> => {
        const p = await probeRpc(url, {
          chainId: c.chain_id,
          historyBlock,
          ...(c.history_from === undefined ? {} : { historyFrom: c.history_from }),
          timeoutMs: PROBE_TIMEOUT_MS,
        });
        const item = `chains.${i}.rpc_urls.${j}`;
        if (p.error !== null && p.head === null) return { item, status: 'error', detail: `${p.url}: ${p.error}` };
        const facts = `${p.url}: chain ${p.chainId}, head ${p.head}, ${p.archive ? `${c.history_from === undefined ? 'archive' : 'history_from'} (state at block ${p.archiveBlock})` : 'no archive state'}, ${p.latencyMs} ms`;
        return { item, status: p.error === null ? 'ok' : 'error', detail: p.error === null ? facts : `${facts} — ${p.error}` };
      });
    });
    // the price module loads viem's contract toolkit: only when there is something to ask
    const sources = config.prices.providers.length > 0 || config.tvl_sources.length > 0 ? await import('../../jobs/prices/probeSources.js') : null;
    const [rpcRows, prices, tvl] = await Promise.all([
      Promise.all(rpc),
      sources ? sources.probePriceProviders(common, config, { timeoutMs: PROBE_TIMEOUT_MS }) : [],
      sources ? sources.probeTvlSources(config) : [],
    ]);
    return [
      ...rpcRows,
      ...[...prices, ...tvl].map((s): CheckRow => ({ item: s.name, status: s.ok ? 'ok' : 'error', detail: s.ok ? `${s.detail}, ${s.ms} ms` : s.detail })),
    ];
  } finally {
    await common.shutdown.close('done');
  }
}

function table(file: string, rows: readonly CheckRow[]): string {
  const width = Math.max(4, ...rows.map((r) => r.item.length));
  const errors = rows.filter((r) => r.status === 'error').length;
  const warnings = rows.filter((r) => r.status === 'warn').length;
  return [
    `config check: ${file}`,
    `${'item'.padEnd(width)}  status  detail`,
    ...rows.map((r) => `${r.item.padEnd(width)}  ${r.status.padEnd(6)}  ${r.detail}`),
    errors > 0
      ? `${errors} error(s), ${warnings} warning(s): fix the errors (exit 2)`
      : `no errors, ${warnings} warning(s)${warnings > 0 ? ': see above' : ''}`,
  ].join('\n');
}

// What `vaultd config check` says of a configuration beyond its schema (config.ts): the
// references between its parts that the program relies on (a vault's chain, group and
// strategy; a Chainlink provider's chain; schedules croner can read) and the defaults an
// operator should know they took (no start_block: the deployment block is searched for). Pure over the
// parsed configuration; the command adds the probes and prints.
import { Cron } from 'croner';
import type { Config } from './config.js';

export type CheckStatus = 'ok' | 'warn' | 'error';

export interface CheckRow {
  /** the key or part checked, e.g. "chains" or "registry.vaults.3.chain_id" */
  item: string;
  status: CheckStatus;
  detail: string;
}

type Checked = Pick<Config, 'chains' | 'registry' | 'prices' | 'tvl_sources' | 'schedules' | 'db'>;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function crossCheckConfig(config: Checked): CheckRow[] {
  const rows: CheckRow[] = [];
  const row = (item: string, status: CheckStatus, detail: string) => rows.push({ item, status, detail });
  const { chains, registry } = config;

  const chainIds = new Set<number>();
  for (const [i, c] of chains.entries()) {
    if (chainIds.has(c.chain_id)) row(`chains.${i}.chain_id`, 'error', `chain ${c.chain_id} is listed twice; list each chain once`);
    chainIds.add(c.chain_id);
    const vaults = registry.vaults.filter((v) => v.chain_id === c.chain_id).length;
    const feeds = config.prices.providers.some((p) => p.kind === 'chainlink' && p.chain_id === c.chain_id);
    if (c.rpc_urls.length === 0 && (vaults > 0 || feeds)) {
      row(
        `chains.${i}.rpc_urls`,
        'error',
        `chain ${c.chain_id} (${c.slug}) has ${plural(vaults, 'vault')}${feeds ? ' and Chainlink feeds' : ''} but no rpc_urls; add at least one`,
      );
    } else {
      row(
        `chains.${i}`,
        'ok',
        `${c.slug} (${c.chain_id}): ${plural(c.rpc_urls.length, 'RPC URL')}, ${plural(vaults, 'vault')}, finality ${c.finality_blocks} blocks`,
      );
    }
  }

  const groups = new Set(registry.groups.map((g) => g.id));
  const strategies = new Set(registry.strategies.map((s) => s.id));
  const seen = new Set<string>();
  let noStart = 0;
  for (const [i, v] of registry.vaults.entries()) {
    const at = `registry.vaults.${i}`;
    const id = `${v.chain_id}:${v.address.toLowerCase()}`;
    if (!chainIds.has(v.chain_id)) row(`${at}.chain_id`, 'error', `vault ${v.address} is on chain ${v.chain_id}, which "chains" does not list`);
    if (seen.has(id)) row(`${at}.address`, 'error', `vault ${id} is listed twice`);
    seen.add(id);
    if (v.group_id != null && !groups.has(v.group_id)) row(`${at}.group_id`, 'error', `group "${v.group_id}" is not in registry.groups`);
    if (v.strategy_id != null && !strategies.has(v.strategy_id)) row(`${at}.strategy_id`, 'error', `strategy "${v.strategy_id}" is not in registry.strategies`);
    if (v.start_block === undefined) noStart++;
  }
  if (registry.vaults.length > 0) {
    row(
      'registry.vaults',
      'ok',
      `${plural(registry.vaults.length, 'vault')} on ${plural(new Set(registry.vaults.map((v) => v.chain_id)).size, 'chain')}, ${plural(registry.groups.length, 'group')}, ${plural(registry.strategies.length, 'strategy', 'strategies')}`,
    );
  }
  if (noStart > 0) {
    row(
      'registry.vaults[].start_block',
      'warn',
      `${noStart} of ${registry.vaults.length} vaults set no start_block: the first ingest round finds each deployment block (eth_getCode bisection, ~log2(head) calls, cached; \`vaultd chains\` lists them)`,
    );
  }
  if (chains.length > 0 && registry.vaults.length === 0) {
    row(
      'registry.vaults',
      'warn',
      'chains are listed but no vaults: nothing is indexed, and `vaultd serve` refuses an empty database (no demo world for a configured deployment)',
    );
  }
  if (chains.length === 0 && registry.vaults.length > 0) row('chains', 'error', 'registry.vaults lists vaults but "chains" lists no chain to read them from');

  for (const [i, p] of config.prices.providers.entries()) {
    if (p.kind !== 'chainlink') continue;
    const chain = chains.find((c) => c.chain_id === p.chain_id);
    if (!chain || chain.rpc_urls.length === 0)
      row(`prices.providers.${i}.chain_id`, 'error', `chain ${p.chain_id} is not in "chains" with an rpc_urls entry; add it there`);
  }
  const sourceIds = new Set<string>();
  for (const [i, s] of config.tvl_sources.entries()) {
    if (sourceIds.has(s.id)) row(`tvl_sources.${i}.id`, 'error', `TVL source id "${s.id}" is used twice`);
    sourceIds.add(s.id);
  }

  for (const [name, pattern] of Object.entries(config.schedules)) {
    try {
      new Cron(pattern, { paused: true });
      row(`schedules.${name}`, 'ok', `"${pattern}"`);
    } catch (err) {
      row(`schedules.${name}`, 'error', `"${pattern}" is not a cron expression croner reads: ${(err as Error).message}`);
    }
  }
  return rows;
}

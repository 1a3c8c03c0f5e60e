// End to end over real JSON-RPC (DESIGN §6.1, §6.2): a devnet scenario ingested by ingestOnce,
// then checked against the chain itself — balances, hourly reads, eth_getLogs one to one.
import { createPublicClient, http, parseEventLogs, type Log, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { readRegistry } from '../../store/registryStore.js';
import { createStore, type Store } from '../../store/store.js';
import { aeraLikeProvisionerV1Abi, aeraLikeProvisionerV2Abi, aeraLikeVaultAbi, morphoLikeVaultAbi, priceAndFeeCalculatorAbi } from '../../devnet/abis.js';
import { devnetChain } from '../../devnet/chain.js';
import { readIngestStatus } from './chainStore.js';
import { createIngestRuntime, ingestOnce, type ChainRoundResult } from './ingestOnce.js';
import { scenarioConfig, scenarioConfigInput, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';
import { parseConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { join } from 'node:path';

interface Row {
  block_number: number;
  log_index: number;
  sub_index: number;
  vault_id: string;
  kind: string;
  wallet: string;
  counterparty: string | null;
  assets: bigint;
  shares: bigint;
  request_hash: string | null;
  ts: number;
  token: string;
}

let sc: Scenario;
let store: Store;
let client: PublicClient;
let result: ChainRoundResult;
let rows: Row[];
let elapsedMs: number;
const common = testCommon();

const lower = (a: string) => a.toLowerCase();

beforeAll(async () => {
  sc = await startScenario({ chainId: 4242, days: 7, seed: 7, wallets: 20 });
  store = await createStore(common, { path: join(tempDir('vaultd-chain-e2e-'), 'e2e.duckdb') });
  const config = scenarioConfig(sc.manifest);
  const t0 = performance.now();
  [result] = (await ingestOnce(common, store, config)) as [ChainRoundResult];
  elapsedMs = performance.now() - t0;
  client = createPublicClient({
    chain: devnetChain(4242, sc.devnet.rpcUrl, sc.manifest.contracts.multicall3),
    transport: http(sc.devnet.rpcUrl),
    cacheTime: 0,
  });
  rows = (
    await store.rows<Record<string, unknown>>(
      'test.rows',
      'SELECT * EXCLUDE (ts), epoch(ts)::BIGINT AS ts FROM vault_events ORDER BY block_number, log_index, sub_index',
    )
  ).map((r) => ({ ...r, block_number: Number(r.block_number), log_index: Number(r.log_index), sub_index: Number(r.sub_index), ts: Number(r.ts) }) as Row);
});

afterAll(async () => {
  await store?.close();
  await sc?.devnet.stop();
});

describe('ingestOnce over the devnet (end to end)', () => {
  it('reaches the head in one round: every block, every vault-hour', () => {
    const m = sc.manifest;
    expect(result.status).toBe('ok');
    expect(result.from).toBe(m.startBlock);
    expect(result.to).toBe(m.endBlock);
    expect(result.bad_data).toBe(0);
    // one snapshot per vault per hour from the deployment block's hour to the last one
    const hours = (m.endTime - m.startTime) / 3600 + 1;
    expect(result.snapshots).toBe(hours * m.vaults.length);
    expect(result.events).toBe(rows.length);
    const perSecond = { logs: result.logs / (elapsedMs / 1000), snapshot_reads: result.snapshot_reads / (elapsedMs / 1000) };
    expect(perSecond.logs).toBeGreaterThan(100);
  });

  it("every wallet's net shares from the rows (the fee recipient's too) equal balanceOf at the head; Morpho shares sum to totalSupply", async () => {
    const m = sc.manifest;
    const sign: Record<string, (r: Row) => bigint> = {
      deposit: (r) => r.shares,
      withdraw: (r) => (r.request_hash === null ? -r.shares : 0n),
      withdraw_pending: (r) => -r.shares,
      withdraw_refunded: (r) => r.shares,
      transfer_in: (r) => r.shares,
      transfer_out: (r) => -r.shares,
      deposit_pending: () => 0n,
      deposit_refunded: () => 0n,
    };
    const net = new Map<string, bigint>();
    for (const r of rows) net.set(`${r.vault_id}|${r.wallet}`, (net.get(`${r.vault_id}|${r.wallet}`) ?? 0n) + sign[r.kind]!(r));
    const holders = [...m.wallets, m.actors.feeRecipient];
    const contracts = m.vaults.flatMap((v) =>
      holders.map((w) => ({ address: v.address, abi: morphoLikeVaultAbi, functionName: 'balanceOf' as const, args: [w] as const })),
    );
    const balances = await client.multicall({ contracts, allowFailure: false });
    let nonZero = 0;
    contracts.forEach((c, i) => {
      const id = `4242:${lower(c.address)}|${lower(c.args[0])}`;
      expect(net.get(id) ?? 0n, id).toBe(balances[i]);
      if (balances[i]! > 0n) nonZero++;
    });
    expect(nonZero).toBeGreaterThan(20);
    // fee shares were minted (to the recipient, booked as transfer_in from the vault)
    const fees = rows.filter((r) => r.kind === 'transfer_in' && r.counterparty === '0x0000000000000000000000000000000000000000');
    expect(fees.length).toBeGreaterThan(0);
    expect(new Set(fees.map((r) => r.wallet))).toEqual(new Set([lower(m.actors.feeRecipient)]));
    // every Morpho and plain ERC-4626 share is someone's row (Aera units in the provisioner's escrow are no one's)
    for (const v of m.vaults.filter((x) => x.vault_type !== 'aera_v3')) {
      const id = `4242:${lower(v.address)}`;
      const total = [...net].filter(([k]) => k.startsWith(`${id}|`)).reduce((a, [, n]) => a + n, 0n);
      expect(total).toBe(await client.readContract({ address: v.address, abi: morphoLikeVaultAbi, functionName: 'totalSupply' }));
    }
  });

  it("hourly snapshots equal the chain's reads at the block at or before each hour", async () => {
    const m = sc.manifest;
    const snaps = await store.rows<{
      vault_id: string;
      ts: bigint;
      block_number: bigint;
      total_assets: bigint;
      total_supply: bigint;
      unit_price: bigint | null;
    }>(
      'test.snaps',
      'SELECT vault_id, epoch(ts)::BIGINT AS ts, block_number, total_assets, total_supply, unit_price FROM vault_snapshots ORDER BY ts, vault_id',
    );
    const byAddress = new Map(m.vaults.map((v) => [`4242:${lower(v.address)}`, v]));
    const sampled = snaps.filter((_, i) => i % 5 === 0);
    for (const s of sampled) {
      const v = byAddress.get(s.vault_id)!;
      const block = BigInt(s.block_number);
      const header = await client.getBlock({ blockNumber: block });
      expect(Number(header.timestamp)).toBeLessThanOrEqual(Number(s.ts));
      if (block < BigInt(m.endBlock)) expect(Number((await client.getBlock({ blockNumber: block + 1n })).timestamp)).toBeGreaterThan(Number(s.ts));
      const supply = await client.readContract({ address: v.address, abi: morphoLikeVaultAbi, functionName: 'totalSupply', blockNumber: block });
      expect(s.total_supply).toBe(supply);
      if (v.vault_type !== 'aera_v3') {
        // ERC-4626 (Morpho, plain): totalAssets and totalSupply, no published price
        expect(s.total_assets).toBe(
          await client.readContract({ address: v.address, abi: morphoLikeVaultAbi, functionName: 'totalAssets', blockNumber: block }),
        );
        expect(s.unit_price).toBeNull();
      } else {
        const calc = v.fee_calculator!;
        const assets = await client.readContract({
          address: calc,
          abi: priceAndFeeCalculatorAbi,
          functionName: 'convertUnitsToNumeraire',
          args: [v.address, supply],
          blockNumber: block,
        });
        expect(s.total_assets).toBe(assets);
        const [price] = await client.readContract({
          address: calc,
          abi: priceAndFeeCalculatorAbi,
          functionName: 'unitPrice',
          args: [v.address],
          blockNumber: block,
        });
        expect(s.unit_price).toBe(price * 10n ** BigInt(18 - v.numeraire.decimals));
      }
    }
    expect(sampled.length).toBeGreaterThan(100);
  });

  it('event rows match eth_getLogs one to one', async () => {
    const m = sc.manifest;
    const c = m.contracts;
    const provisioners = new Set([lower(c.provisionerV1), lower(c.provisionerV2)]);
    const vaultIdOf = (a: string) => {
      const l = lower(a);
      if (l === lower(c.provisionerV1)) return `4242:${lower(c.aeraUsdcVault)}`;
      if (l === lower(c.provisionerV2)) return `4242:${lower(c.aeraBtcVault)}`;
      return `4242:${l}`;
    };
    const addresses = [c.morphoUsdcVault, c.morphoWethVault, c.aeraUsdcVault, c.aeraBtcVault, c.provisionerV1, c.provisionerV2, c.calculator, c.plainUsdcVault];
    const logs = (await client.getLogs({ address: addresses, fromBlock: 0n, toBlock: 'latest' })) as Log[];
    expect(result.logs).toBe(logs.length);
    const abi = [...morphoLikeVaultAbi, ...aeraLikeVaultAbi, ...aeraLikeProvisionerV1Abi, ...aeraLikeProvisionerV2Abi, ...priceAndFeeCalculatorAbi];
    const parsed = parseEventLogs({ abi, logs, strict: true }) as unknown as ({ eventName: string; args: Record<string, unknown> } & Log)[];
    expect(parsed.length).toBe(logs.length);

    const expected: string[] = [];
    const key = (l: Log, sub: number, vault: string, kind: string, wallet: string, hash: string | null = null) =>
      `${Number(l.blockNumber)}/${l.logIndex}/${sub} ${vault} ${kind} ${lower(wallet)} ${hash ?? '-'}`;
    const requests = new Map<string, { user: string; receiver: string }>();
    const sameTx = (l: Log, name: string) =>
      parsed.find((p) => p.transactionHash === l.transactionHash && p.eventName === name && provisioners.has(lower(p.args.sender as string)));
    for (const l of parsed) {
      const a = l.args;
      const v = vaultIdOf(l.address);
      switch (l.eventName) {
        case 'Deposit':
          expected.push(key(l, 0, v, 'deposit', a.owner as string));
          break;
        case 'Withdraw':
          expected.push(key(l, 0, v, 'withdraw', a.owner as string));
          break;
        case 'Transfer': {
          const [from, to] = [lower(a.from as string), lower(a.to as string)];
          if (from === '0x0000000000000000000000000000000000000000' || to === '0x0000000000000000000000000000000000000000') break;
          if (provisioners.has(from) || provisioners.has(to)) break;
          expected.push(key(l, 0, v, 'transfer_out', from), key(l, 1, v, 'transfer_in', to));
          break;
        }
        case 'Enter':
          if (!provisioners.has(lower(a.sender as string))) expected.push(key(l, 0, v, 'deposit', a.recipient as string));
          break;
        case 'Exit':
          if (!provisioners.has(lower(a.sender as string))) expected.push(key(l, 0, v, 'withdraw', a.sender as string));
          break;
        case 'DepositRequested':
        case 'RedeemRequested': {
          const hash = lower((a.depositRequestHash ?? a.redeemRequestHash) as string);
          requests.set(hash, { user: lower(a.user as string), receiver: lower((a.receiver ?? a.user) as string) });
          expected.push(key(l, 0, v, l.eventName === 'DepositRequested' ? 'deposit_pending' : 'withdraw_pending', a.user as string, hash));
          break;
        }
        case 'DepositSolved': {
          const hash = lower(a.depositHash as string);
          const r = requests.get(hash)!;
          expected.push(key(l, 0, v, 'deposit', r.user, hash));
          const enter = sameTx(l, 'Enter')!;
          expect(lower(enter.args.recipient as string)).toBe(r.receiver);
          if (r.receiver !== r.user) expected.push(key(l, 1, v, 'transfer_out', r.user), key(l, 2, v, 'transfer_in', r.receiver));
          break;
        }
        case 'RedeemSolved': {
          const hash = lower(a.redeemHash as string);
          expected.push(key(l, 0, v, 'withdraw', requests.get(hash)!.user, hash));
          expect(sameTx(l, 'Exit')).toBeDefined();
          break;
        }
        case 'DepositRefunded':
        case 'RedeemRefunded': {
          const hash = lower((a.depositHash ?? a.redeemHash) as string);
          expected.push(key(l, 0, v, l.eventName === 'DepositRefunded' ? 'deposit_refunded' : 'withdraw_refunded', requests.get(hash)!.user, hash));
          break;
        }
        case 'AccrueInterest': {
          // the fee shares: the mint of exactly that many shares just before, in the same transaction
          if ((a.feeShares as bigint) === 0n) break;
          const mint = parsed
            .filter((p) => p.transactionHash === l.transactionHash && p.address === l.address && p.eventName === 'Transfer' && p.logIndex! < l.logIndex!)
            .at(-1)!;
          expect(mint.args.from).toBe('0x0000000000000000000000000000000000000000');
          expect(mint.args.value).toBe(a.feeShares);
          expected.push(key(mint, 0, v, 'transfer_in', mint.args.to as string));
          break;
        }
        default:
          break;
      }
    }
    // each request's terms (DESIGN §11.8): the deadline and solver tip of its *Requested event
    const terms = await store.rows<{ k: string }>(
      't.terms',
      "SELECT vault_id || ' ' || request_hash || ' ' || epoch(deadline)::BIGINT || ' ' || solver_tip::VARCHAR AS k FROM request_terms ORDER BY 1",
    );
    const eventTerms = parsed
      .filter((l) => l.eventName === 'DepositRequested' || l.eventName === 'RedeemRequested')
      .map((l) => `${vaultIdOf(l.address)} ${lower((l.args.depositRequestHash ?? l.args.redeemRequestHash) as string)} ${l.args.deadline} ${l.args.solverTip}`);
    expect(terms.map((t) => t.k)).toEqual(eventTerms.sort());
    expect(eventTerms.length).toBeGreaterThan(10);
    const actual = rows.map((r) => `${r.block_number}/${r.log_index}/${r.sub_index} ${r.vault_id} ${r.kind} ${r.wallet} ${r.request_hash ?? '-'}`);
    expect(actual.sort()).toEqual(expected.sort());
    // every kind of §4.6 appears, and the v2 receiver case too
    expect(new Set(rows.map((r) => r.kind)).size).toBe(8);
    expect(rows.filter((r) => r.sub_index === 2).length, 'a v2 deposit settled to another receiver').toBeGreaterThan(0);
  });

  it('request hashes pair: each settlement or refund follows its own request, the open ones stay pending', () => {
    const pending = new Map<string, Row>();
    const closed = new Set<string>();
    for (const r of rows) {
      if (r.request_hash === null) continue;
      if (r.kind.endsWith('_pending')) {
        expect(pending.has(r.request_hash)).toBe(false);
        pending.set(r.request_hash, r);
        continue;
      }
      const req = pending.get(r.request_hash);
      expect(req, `${r.kind} ${r.request_hash} has its request`).toBeDefined();
      expect(req!.vault_id).toBe(r.vault_id);
      expect(req!.wallet).toBe(r.wallet);
      expect(closed.has(r.request_hash)).toBe(false);
      closed.add(r.request_hash);
      if (r.kind === 'deposit' || r.kind === 'deposit_refunded') expect(r.assets).toBe(req!.assets); // the request's assets
      if (r.kind === 'withdraw' || r.kind === 'withdraw_refunded') expect(r.shares).toBe(req!.shares); // the escrowed shares
    }
    const open = [...pending.keys()].filter((h) => !closed.has(h)).sort();
    expect(open).toEqual(sc.manifest.pendingRequests.map((p) => lower(p.hash)).sort());
    expect(closed.size).toBeGreaterThan(10);
  });

  it('a second round adds nothing and changes no table (idempotent)', async () => {
    const before = await tableHashes(store);
    const [again] = await ingestOnce(common, store, scenarioConfig(sc.manifest));
    expect(again).toMatchObject({ status: 'ok', from: null, events: 0, snapshots: 0 });
    expect(await tableHashes(store)).toEqual(before);
    const [status] = await readIngestStatus(store, 4242);
    expect(status).toMatchObject({ status: 'ok', consecutive_failures: 0, checkpoint_block: sc.manifest.endBlock, checkpoint_ts: sc.manifest.endTime });
  });

  it('without a Multicall3 on the chain, deployless multicalls read the same snapshots', async () => {
    const input = scenarioConfigInput(sc.manifest);
    for (const v of input.registry!.vaults!) delete (v.definition as Record<string, unknown>).multicall3;
    const config = { ...parseConfig(VAULT_TYPES, input, 'test'), source: null, log_level: 'silent' };
    const other = await createStore(testCommon(), { path: ':memory:' });
    try {
      const runtime = createIngestRuntime(testCommon(), config, { initialRange: 50 });
      const [r] = await ingestOnce(testCommon(), other, config, { runtime });
      expect(r!.status).toBe('ok');
      expect(runtime.chains[0]!.reader.mode).toBe('deployless');
      expect(await tableHashes(other, ['vault_snapshots', 'vault_events'])).toEqual(await tableHashes(store, ['vault_snapshots', 'vault_events']));
    } finally {
      await other.close();
    }
  });

  it('a vault registered later is backfilled from its start block, the others are not re-read', async () => {
    const full = scenarioConfigInput(sc.manifest);
    const partial = { ...full, registry: { vaults: full.registry!.vaults!.filter((v) => v.address !== sc.manifest.contracts.aeraBtcVault) } };
    const other = await createStore(testCommon(), { path: ':memory:' });
    try {
      const [a] = await ingestOnce(testCommon(), other, { ...parseConfig(VAULT_TYPES, partial, 'test'), source: null, log_level: 'silent' });
      expect(a).toMatchObject({ status: 'ok', to: sc.manifest.endBlock });
      const [b] = await ingestOnce(testCommon(), other, { ...parseConfig(VAULT_TYPES, full, 'test'), source: null, log_level: 'silent' });
      expect(b).toMatchObject({ status: 'ok', from: sc.manifest.startBlock, to: sc.manifest.endBlock });
      // only the new vault's hours were read
      expect(b!.snapshot_reads).toBe(b!.snapshots);
      expect(b!.snapshots).toBe(result.snapshots / sc.manifest.vaults.length);
      expect(await tableHashes(other)).toEqual(await tableHashes(store));
    } finally {
      await other.close();
    }
  });

  it('a start_block moved earlier backfills the gap; moved later, nothing is dropped or re-read', async () => {
    const full = scenarioConfigInput(sc.manifest);
    const late = sc.manifest.startBlock + 60;
    const withStart = (start: number) => ({
      ...full,
      registry: { vaults: full.registry!.vaults!.map((v) => (v.address === sc.manifest.contracts.morphoUsdcVault ? { ...v, start_block: start } : v)) },
    });
    const other = await createStore(testCommon(), { path: ':memory:' });
    try {
      const [a] = await ingestOnce(testCommon(), other, { ...parseConfig(VAULT_TYPES, withStart(late), 'test'), source: null, log_level: 'silent' });
      expect(a).toMatchObject({ status: 'ok', to: sc.manifest.endBlock });
      expect(await tableHashes(other, ['vault_events'])).not.toEqual(await tableHashes(store, ['vault_events']));
      const [b] = await ingestOnce(testCommon(), other, { ...parseConfig(VAULT_TYPES, full, 'test'), source: null, log_level: 'silent' });
      expect(b).toMatchObject({ status: 'ok', from: sc.manifest.startBlock, to: sc.manifest.endBlock });
      expect(await tableHashes(other)).toEqual(await tableHashes(store));
      const [c] = await ingestOnce(testCommon(), other, { ...parseConfig(VAULT_TYPES, withStart(late), 'test'), source: null, log_level: 'silent' });
      expect(c).toMatchObject({ status: 'ok', from: null, events: 0 });
      // the registry follows the config; every ingested row stays
      const raw = ['vault_events', 'vault_snapshots', 'chain_requests'];
      expect(await tableHashes(other, raw)).toEqual(await tableHashes(store, raw));
    } finally {
      await other.close();
    }
  });

  it('the registry: ids, numeraires, tokens and definition fields read on chain', async () => {
    const m = sc.manifest;
    const reg = await readRegistry(store);
    expect(reg.chains).toEqual([{ chain_id: 4242, slug: 'devnet', name: 'vaultd devnet', finality_blocks: 0, rpc_urls: [sc.devnet.rpcUrl] }]);
    expect(reg.vaults.map((v) => v.vault_id).sort()).toEqual(m.vaults.map((v) => `4242:${lower(v.address)}`).sort());
    const usdc = reg.vaults.find((v) => v.address === lower(m.contracts.morphoUsdcVault))!;
    expect(usdc).toMatchObject({ numeraire_address: lower(m.contracts.usdc), numeraire_decimals: 6, numeraire_symbol: 'USDC', listed_at: m.startTime });
    // setCurator to the second curator happened mid-scenario; the fee is 10 % (WAD)
    expect(usdc.definition).toMatchObject({
      curator: lower(m.actors.curators[1]!),
      fee_wad: '100000000000000000',
      fee_recipient: lower(m.actors.feeRecipient),
      owner: lower(m.actors.deployer),
    });
    const aera = reg.vaults.find((v) => v.address === lower(m.contracts.aeraUsdcVault))!;
    expect(aera.definition).toMatchObject({
      provisioner: lower(m.contracts.provisionerV1),
      fee_calculator: lower(m.contracts.calculator),
      fees: { tvl_fee_bps: 75, performance_fee_bps: 1000 },
    });
    // the plain ERC-4626 vault: its asset, read on chain; no owner, curator or fee
    const plain = reg.vaults.find((v) => v.address === lower(m.contracts.plainUsdcVault))!;
    expect(plain.definition).toEqual({ asset: lower(m.contracts.usdc), multicall3: m.contracts.multicall3 });
    expect(reg.tokens.map((t) => t.symbol).sort()).toEqual(['USDC', 'WETH', 'cbBTC']);
  });
});

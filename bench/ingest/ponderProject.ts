// The Ponder project of the ingest bench's comparison, written into a temporary folder: the
// same devnet contracts and events vaultd indexes (DESIGN §6.1), each event stored as a row
// (settlements joined to their stored request, as vaultd does), and every hour's totalAssets /
// totalSupply (Aera: the calculator's unit price) read in one multicall per block — on the
// devnet every block closes one hour. Ponder's own idioms: onchainTable, ponder.on, a block
// interval source, context.client.multicall, and PGlite as the store (embedded, no server).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Abi } from 'viem';
import { aeraLikeProvisionerV1Abi, aeraLikeProvisionerV2Abi, aeraLikeVaultAbi, morphoLikeVaultAbi, priceAndFeeCalculatorAbi } from '../../devnet/abis.js';
import type { DevnetManifest } from '../../devnet/index.js';

/** What the generated files read at run time (bench.json beside them). */
interface ProjectData {
  chainId: number;
  rpcUrl: string;
  startBlock: number;
  endBlock: number;
  multicall3: string;
  calculator: string;
  vaults: { address: string; vault_type: string; decimals: number; provisioner: string | null; provisioner_version: number | null }[];
  abis: Record<'morpho' | 'aera' | 'provisionerV1' | 'provisionerV2' | 'calculator', Abi>;
}

const READS = new Set(['totalAssets', 'totalSupply', 'convertUnitsToNumeraire']);
/** events, and the view functions the hourly reads call */
const slim = (abi: Abi): Abi => abi.filter((x) => x.type === 'event' || (x.type === 'function' && READS.has(x.name)));

export function writePonderProject(dir: string, manifest: DevnetManifest): void {
  const data: ProjectData = {
    chainId: manifest.chainId,
    rpcUrl: manifest.rpcUrl,
    startBlock: manifest.startBlock,
    endBlock: manifest.endBlock,
    multicall3: manifest.contracts.multicall3,
    calculator: manifest.contracts.calculator,
    vaults: manifest.vaults.map((v) => ({
      address: v.address,
      vault_type: v.vault_type,
      decimals: v.numeraire.decimals,
      provisioner: v.provisioner ?? null,
      provisioner_version: v.provisioner_version ?? null,
    })),
    abis: {
      morpho: slim(morphoLikeVaultAbi),
      aera: slim(aeraLikeVaultAbi),
      provisionerV1: slim(aeraLikeProvisionerV1Abi),
      provisionerV2: slim(aeraLikeProvisionerV2Abi),
      calculator: slim(priceAndFeeCalculatorAbi),
    },
  };
  mkdirSync(join(dir, 'src', 'api'), { recursive: true });
  writeFileSync(join(dir, 'bench.json'), JSON.stringify(data));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'vaultd-ingest-bench-ponder', private: true, type: 'module' }));
  writeFileSync(join(dir, 'ponder.config.ts'), CONFIG);
  writeFileSync(join(dir, 'ponder.schema.ts'), SCHEMA);
  writeFileSync(join(dir, 'src', 'index.ts'), HANDLERS);
  writeFileSync(join(dir, 'src', 'api', 'index.ts'), API);
}

const CONFIG = `import { readFileSync } from "node:fs";
import { createConfig } from "ponder";

const b = JSON.parse(readFileSync(new URL("./bench.json", import.meta.url), "utf8"));
const range = { startBlock: b.startBlock, endBlock: b.endBlock };
const aera = b.vaults.filter((v) => v.vault_type === "aera_v3");
const provisioners = (version) => aera.filter((v) => v.provisioner_version === version).map((v) => v.provisioner);

export default createConfig({
  database: { kind: "pglite", directory: "./.ponder/pglite" },
  // disableCache: Ponder's advice for a local node (its RPC cache assumes a chain that outlives the run)
  chains: { devnet: { id: b.chainId, rpc: b.rpcUrl, disableCache: true } },
  contracts: {
    // the ERC-4626 vaults: Morpho-like and plain (the plain one emits the standard's events only)
    MorphoVault: { abi: b.abis.morpho, chain: "devnet", address: b.vaults.filter((v) => v.vault_type !== "aera_v3").map((v) => v.address), ...range },
    AeraVault: { abi: b.abis.aera, chain: "devnet", address: aera.map((v) => v.address), ...range },
    ProvisionerV1: { abi: b.abis.provisionerV1, chain: "devnet", address: provisioners(1), ...range },
    ProvisionerV2: { abi: b.abis.provisionerV2, chain: "devnet", address: provisioners(2), ...range },
    Calculator: { abi: b.abis.calculator, chain: "devnet", address: b.calculator, ...range },
  },
  // every devnet block closes one hour: the hourly snapshot reads
  blocks: { Hourly: { chain: "devnet", interval: 1, ...range } },
});
`;

const SCHEMA = `import { onchainTable } from "ponder";

export const vaultEvent = onchainTable("vault_event", (t) => ({
  id: t.text().primaryKey(),
  vault: t.hex().notNull(),
  kind: t.text().notNull(),
  wallet: t.hex(),
  counterparty: t.hex(),
  assets: t.bigint(),
  shares: t.bigint(),
  requestHash: t.hex(),
  block: t.bigint().notNull(),
  ts: t.bigint().notNull(),
}));

export const request = onchainTable("request", (t) => ({
  id: t.text().primaryKey(),
  kind: t.text().notNull(),
  user: t.hex().notNull(),
  receiver: t.hex().notNull(),
  tokens: t.bigint().notNull(),
  units: t.bigint().notNull(),
}));

export const snapshot = onchainTable("snapshot", (t) => ({
  id: t.text().primaryKey(),
  vault: t.hex().notNull(),
  block: t.bigint().notNull(),
  ts: t.bigint().notNull(),
  totalAssets: t.bigint().notNull(),
  totalSupply: t.bigint().notNull(),
  unitPrice: t.bigint(),
}));
`;

const HANDLERS = `import { readFileSync } from "node:fs";
import { ponder } from "ponder:registry";
import { request, snapshot, vaultEvent } from "ponder:schema";

const b = JSON.parse(readFileSync(new URL("../bench.json", import.meta.url), "utf8"));
const ZERO = "0x0000000000000000000000000000000000000000";
const UNIT = 10n ** 18n;
const vaultOf = new Map(b.vaults.filter((v) => v.provisioner).map((v) => [v.provisioner.toLowerCase(), v.address]));
const provisionerVault = (event) => vaultOf.get(event.log.address.toLowerCase());

async function rows(context, event, vault, list) {
  await context.db.insert(vaultEvent).values(
    list.map((r, i) => ({
      id: event.id + ":" + i, vault, block: event.block.number, ts: event.block.timestamp,
      wallet: null, counterparty: null, assets: null, shares: null, requestHash: null, ...r,
    })),
  );
}

ponder.on("MorphoVault:Deposit", ({ event, context }) =>
  rows(context, event, event.log.address, [{ kind: "deposit", wallet: event.args.owner, counterparty: event.args.sender, assets: event.args.assets, shares: event.args.shares }]));
ponder.on("MorphoVault:Withdraw", ({ event, context }) =>
  rows(context, event, event.log.address, [{ kind: "withdraw", wallet: event.args.owner, counterparty: event.args.receiver, assets: event.args.assets, shares: event.args.shares }]));
ponder.on("MorphoVault:AccrueInterest", ({ event, context }) =>
  rows(context, event, event.log.address, [{ kind: "accrue_interest", assets: event.args.newTotalAssets, shares: event.args.feeShares }]));
ponder.on("MorphoVault:SetFee", ({ event, context }) =>
  rows(context, event, event.log.address, [{ kind: "set_fee", wallet: event.args.caller, assets: event.args.newFee }]));
ponder.on("MorphoVault:SetCurator", ({ event, context }) =>
  rows(context, event, event.log.address, [{ kind: "set_curator", wallet: event.args.newCurator }]));
for (const name of ["MorphoVault:Transfer", "AeraVault:Transfer"]) {
  ponder.on(name, async ({ event, context }) => {
    const { from, to, value } = event.args;
    // mints and burns are the Deposit / Withdraw / Enter / Exit rows
    if (from === ZERO || to === ZERO) return;
    await rows(context, event, event.log.address, [
      { kind: "transfer_out", wallet: from, counterparty: to, shares: value },
      { kind: "transfer_in", wallet: to, counterparty: from, shares: value },
    ]);
  });
}
ponder.on("AeraVault:Enter", ({ event, context }) =>
  rows(context, event, event.log.address, [{ kind: "deposit", wallet: event.args.recipient, counterparty: event.args.sender, assets: event.args.tokenAmount, shares: event.args.unitsAmount }]));
ponder.on("AeraVault:Exit", ({ event, context }) =>
  rows(context, event, event.log.address, [{ kind: "withdraw", wallet: event.args.sender, counterparty: event.args.recipient, assets: event.args.tokenAmount, shares: event.args.unitsAmount }]));

for (const p of ["ProvisionerV1", "ProvisionerV2"]) {
  ponder.on(p + ":DepositRequested", async ({ event, context }) => {
    const a = event.args;
    await context.db.insert(request).values({ id: event.log.address + ":" + a.depositRequestHash, kind: "deposit", user: a.user, receiver: a.receiver ?? a.user, tokens: a.tokensIn, units: a.minUnitsOut });
    await rows(context, event, provisionerVault(event), [{ kind: "deposit_pending", wallet: a.user, counterparty: a.receiver ?? null, assets: a.tokensIn, shares: a.minUnitsOut, requestHash: a.depositRequestHash }]);
  });
  ponder.on(p + ":RedeemRequested", async ({ event, context }) => {
    const a = event.args;
    await context.db.insert(request).values({ id: event.log.address + ":" + a.redeemRequestHash, kind: "redeem", user: a.user, receiver: a.receiver ?? a.user, tokens: a.minTokensOut, units: a.unitsIn });
    await rows(context, event, provisionerVault(event), [{ kind: "withdraw_pending", wallet: a.user, counterparty: a.receiver ?? null, assets: a.minTokensOut, shares: a.unitsIn, requestHash: a.redeemRequestHash }]);
  });
  // a settlement carries only the hash: the amounts come from the stored request
  for (const [name, kind] of [["DepositSolved", "deposit_solved"], ["RedeemSolved", "withdraw_solved"], ["DepositRefunded", "deposit_refunded"], ["RedeemRefunded", "withdraw_refunded"]]) {
    ponder.on(p + ":" + name, async ({ event, context }) => {
      const hash = event.args.depositHash ?? event.args.redeemHash;
      const r = await context.db.find(request, { id: event.log.address + ":" + hash });
      await rows(context, event, provisionerVault(event), [{ kind, wallet: r?.receiver ?? null, counterparty: r?.user ?? null, assets: r?.tokens ?? null, shares: r?.units ?? null, requestHash: hash }]);
    });
  }
  ponder.on(p + ":Deposited", ({ event, context }) =>
    rows(context, event, provisionerVault(event), [{ kind: "deposited", wallet: event.args.user, assets: event.args.tokensIn, shares: event.args.unitsOut }]));
}
ponder.on("ProvisionerV2:Redeemed", ({ event, context }) =>
  rows(context, event, provisionerVault(event), [{ kind: "redeemed", wallet: event.args.user, counterparty: event.args.receiver, assets: event.args.tokensOut, shares: event.args.unitsIn }]));
ponder.on("Calculator:UnitPriceUpdated", ({ event, context }) =>
  rows(context, event, event.args.vault, [{ kind: "unit_price", assets: event.args.price }]));
ponder.on("Calculator:VaultFeesSet", ({ event, context }) =>
  rows(context, event, event.args.vault, [{ kind: "vault_fees", assets: BigInt(event.args.tvlFee), shares: BigInt(event.args.performanceFee) }]));

// the hourly snapshot: every vault's two reads in one multicall at the block
const reads = b.vaults.flatMap((v) => [
  v.vault_type !== "aera_v3"
    ? { address: v.address, abi: b.abis.morpho, functionName: "totalAssets" }
    : { address: b.calculator, abi: b.abis.calculator, functionName: "convertUnitsToNumeraire", args: [v.address, UNIT] },
  { address: v.address, abi: b.abis.morpho, functionName: "totalSupply" },
]);
ponder.on("Hourly:block", async ({ event, context }) => {
  const out = await context.client.multicall({ contracts: reads, allowFailure: false, multicallAddress: b.multicall3 });
  await context.db.insert(snapshot).values(
    b.vaults.map((v, i) => {
      const first = out[2 * i];
      const supply = out[2 * i + 1];
      const morpho = v.vault_type !== "aera_v3";
      return {
        id: v.address + ":" + event.block.number, vault: v.address, block: event.block.number, ts: event.block.timestamp,
        totalAssets: morpho ? first : (supply * first) / UNIT,
        totalSupply: supply,
        unitPrice: morpho ? null : first * 10n ** BigInt(18 - v.decimals),
      };
    }),
  );
});
`;

const API = `import { Hono } from "hono";
import { count } from "ponder";
import { db } from "ponder:api";
import { request, snapshot, vaultEvent } from "ponder:schema";

// the bench reads the row counts at the end; nothing else is served
const app = new Hono();
app.get("/bench/counts", async (c) => {
  const n = async (table) => (await db.select({ n: count() }).from(table))[0].n;
  return c.json({ vault_events: await n(vaultEvent), requests: await n(request), snapshots: await n(snapshot) });
});
export default app;
`;

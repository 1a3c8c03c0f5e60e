// Deploys the devnet's contracts and wires them, all queued into one block (block 1): Multicall3
// first, then tokens (USDC 6, WETH 18, cbBTC 8), USD feeds, the Aera price-and-fee calculator,
// two Morpho-like vaults (USDC, WETH), two Aera-like vaults (USDC behind a v1 provisioner,
// cbBTC behind a v2 one), a plain ERC-4626 vault (USDC); then roles, fees, wallet funding and
// approvals.
import { getAddress, keccak256, maxUint256, toHex, type Address } from 'viem';
import {
  aeraLikeProvisionerV1Abi,
  aeraLikeProvisionerV2Abi,
  aeraLikeVaultAbi,
  chainlinkLikeAggregatorAbi,
  morphoLikeVaultAbi,
  multicall3Abi,
  plainERC4626VaultAbi,
  priceAndFeeCalculatorAbi,
  testTokenAbi,
} from './abis.js';
import type { TxQueue } from './txQueue.js';

export interface DevnetActors {
  /** owner of every contract; also the keeper that pushes prices and accrues interest */
  deployer: Address;
  /** the only address allowed to solve Aera requests */
  solver: Address;
  /** receives the Morpho-like vaults' fee shares */
  feeRecipient: Address;
  /** curators: the first is set at deployment, the second replaces it mid-scenario */
  curators: readonly [Address, Address];
  wallets: readonly Address[];
}

export interface TokenInfo {
  address: Address;
  symbol: string;
  decimals: number;
}

export interface DevnetContracts {
  multicall3: Address;
  calculator: Address;
  usdc: TokenInfo;
  weth: TokenInfo;
  cbbtc: TokenInfo;
  usdcUsdFeed: Address;
  ethUsdFeed: Address;
  btcUsdFeed: Address;
  morphoUsdcVault: Address;
  morphoWethVault: Address;
  aeraUsdcVault: Address;
  aeraBtcVault: Address;
  provisionerV1: Address;
  provisionerV2: Address;
  /** a plain ERC-4626 vault over USDC (no owner, no fee): the `erc4626` family */
  plainUsdcVault: Address;
}

/** An address from a label: no key behind it (the devnet impersonates), same on every run. */
export function labelAddress(label: string): Address {
  return getAddress(`0x${keccak256(toHex(`vaultd-devnet:${label}`)).slice(-40)}`);
}

/** Fixed role addresses (contract addresses then never change); wallets vary with the seed. */
export function devnetActors(seed: number, walletCount: number): DevnetActors {
  return {
    deployer: labelAddress('deployer'),
    solver: labelAddress('solver'),
    feeRecipient: labelAddress('fee-recipient'),
    curators: [labelAddress('curator-1'), labelAddress('curator-2')],
    wallets: Array.from({ length: walletCount }, (_, i) => labelAddress(`seed-${seed}:wallet-${i}`)),
  };
}

/** Queues every deployment (the deployer's nonces 0..14, so addresses are fixed; a contract added later comes last). */
export async function deployContracts(q: TxQueue, actors: DevnetActors): Promise<DevnetContracts> {
  const d = actors.deployer;
  const multicall3 = await q.deploy(d, 'Multicall3', multicall3Abi, []);
  const token = async (name: string, symbol: string, decimals: number): Promise<TokenInfo> => ({
    address: await q.deploy(d, 'TestToken', testTokenAbi, [name, symbol, decimals]),
    symbol,
    decimals,
  });
  const usdc = await token('USD Coin', 'USDC', 6);
  const weth = await token('Wrapped Ether', 'WETH', 18);
  const cbbtc = await token('Coinbase Wrapped BTC', 'cbBTC', 8);
  const feed = (description: string) => q.deploy(d, 'ChainlinkLikeAggregator', chainlinkLikeAggregatorAbi, [d, description]);
  const usdcUsdFeed = await feed('USDC / USD');
  const ethUsdFeed = await feed('ETH / USD');
  const btcUsdFeed = await feed('BTC / USD');
  const calculator = await q.deploy(d, 'PriceAndFeeCalculator', priceAndFeeCalculatorAbi, [d]);
  const morpho = (asset: TokenInfo, name: string, symbol: string) =>
    q.deploy(d, 'MorphoLikeVault', morphoLikeVaultAbi, [d, asset.address, actors.feeRecipient, name, symbol]);
  const morphoUsdcVault = await morpho(usdc, 'Devnet USDC Prime', 'dvUSDC');
  const morphoWethVault = await morpho(weth, 'Devnet WETH Core', 'dvWETH');
  const aeraUsdcVault = await q.deploy(d, 'AeraLikeVault', aeraLikeVaultAbi, [d, 'Devnet Aera USDC', 'daUSDC']);
  const aeraBtcVault = await q.deploy(d, 'AeraLikeVault', aeraLikeVaultAbi, [d, 'Devnet Aera BTC', 'daBTC']);
  const provisionerV1 = await q.deploy(d, 'AeraLikeProvisionerV1', aeraLikeProvisionerV1Abi, [d, aeraUsdcVault, calculator, usdc.address, actors.solver]);
  const provisionerV2 = await q.deploy(d, 'AeraLikeProvisionerV2', aeraLikeProvisionerV2Abi, [d, aeraBtcVault, calculator, cbbtc.address, actors.solver]);
  const plainUsdcVault = await q.deploy(d, 'PlainERC4626Vault', plainERC4626VaultAbi, [usdc.address, 'Devnet Plain USDC', 'dpUSDC']);
  return {
    multicall3,
    calculator,
    usdc,
    weth,
    cbbtc,
    usdcUsdFeed,
    ethUsdFeed,
    btcUsdFeed,
    morphoUsdcVault,
    morphoWethVault,
    aeraUsdcVault,
    aeraBtcVault,
    provisionerV1,
    provisionerV2,
    plainUsdcVault,
  };
}

/** Per wallet: whole-token amounts minted once, far above anything the scenario deposits. */
const WALLET_FUNDING = { USDC: 100_000_000n, WETH: 50_000n, cbBTC: 2_000n } as const;

/**
 * Queues the static wiring: provisioners, curators, the USDC vault's fee, then each wallet's
 * funding and approvals (Morpho vault, Aera vault for sync deposits, provisioner for requests,
 * the plain ERC-4626 vault).
 */
export async function configureContracts(q: TxQueue, c: DevnetContracts, actors: DevnetActors): Promise<void> {
  const d = actors.deployer;
  await q.write(d, { address: c.aeraUsdcVault, abi: aeraLikeVaultAbi, functionName: 'setProvisioner', args: [c.provisionerV1, true] });
  await q.write(d, { address: c.aeraBtcVault, abi: aeraLikeVaultAbi, functionName: 'setProvisioner', args: [c.provisionerV2, true] });
  for (const vault of [c.morphoUsdcVault, c.morphoWethVault]) {
    await q.write(d, { address: vault, abi: morphoLikeVaultAbi, functionName: 'setCurator', args: [actors.curators[0]] });
  }
  // 10 % (WAD) on the USDC vault; the WETH vault starts fee-free and gets one mid-scenario
  await q.write(d, { address: c.morphoUsdcVault, abi: morphoLikeVaultAbi, functionName: 'setFee', args: [10n ** 17n] });
  for (const [vault, tvlFee, performanceFee] of [
    [c.aeraUsdcVault, 50, 1000],
    [c.aeraBtcVault, 100, 1500],
  ] as const) {
    await q.write(d, { address: c.calculator, abi: priceAndFeeCalculatorAbi, functionName: 'setVaultFees', args: [vault, tvlFee, performanceFee] });
  }
  const spenders: [TokenInfo, Address[]][] = [
    [c.usdc, [c.morphoUsdcVault, c.aeraUsdcVault, c.provisionerV1, c.plainUsdcVault]],
    [c.weth, [c.morphoWethVault]],
    [c.cbbtc, [c.aeraBtcVault, c.provisionerV2]],
  ];
  for (const wallet of actors.wallets) {
    for (const [token, toApprove] of spenders) {
      const amount = WALLET_FUNDING[token.symbol as keyof typeof WALLET_FUNDING] * 10n ** BigInt(token.decimals);
      await q.write(wallet, { address: token.address, abi: testTokenAbi, functionName: 'mint', args: [wallet, amount] });
      for (const spender of toApprove) {
        await q.write(wallet, { address: token.address, abi: testTokenAbi, functionName: 'approve', args: [spender, maxUint256] });
      }
    }
  }
}

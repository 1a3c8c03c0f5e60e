// The devnet's chain: the real Hardhat network (hardhat@2.29.1, EDR engine) in-process, served
// over HTTP JSON-RPC on 127.0.0.1 so the indexer reaches it exactly as it would a public RPC
// (DESIGN §6.2). Automine is off: the simulator queues an hour's transactions, then closes the
// hour with one block stamped on the hour.
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { EIP1193Provider } from 'hardhat/types/provider.js';
import type * as ProviderModule from 'hardhat/internal/hardhat-network/provider/provider.js';
import type * as ServerModule from 'hardhat/internal/hardhat-network/jsonrpc/server.js';
import type * as DefaultConfigModule from 'hardhat/internal/core/config/default-config.js';
import { defineChain, type Address, type Chain } from 'viem';
import { VaultdError } from '../common/errors.js';

export type { EIP1193Provider };

export const DEFAULT_CHAIN_ID = 31337;
export const HOUR = 3600;
/** 2025-01-01T00:00:00Z: the default genesis time, so a run without options is reproducible. */
export const DEFAULT_START_TIME = 1_735_689_600;

export interface StartDevnetOptions {
  /** HTTP port on 127.0.0.1; 0 (default) picks a free one */
  port?: number;
  /** default 31337 (Hardhat's) */
  chainId?: number;
  /** genesis block time, unix seconds on the hour (Hardhat's `initialDate`); default 2025-01-01 */
  startTime?: number;
}

export interface Devnet {
  rpcUrl: string;
  chainId: number;
  /** genesis time; the first block the simulator mines is one hour later */
  startTime: number;
  /** the in-process EIP-1193 provider: the simulator sends through it, skipping HTTP */
  provider: EIP1193Provider;
  /** closes the HTTP server; the in-memory chain is dropped with the last reference */
  stop(): Promise<void>;
}

/**
 * Starts a fresh chain. Builds the Hardhat network provider directly from Hardhat's own
 * defaults rather than through a hardhat.config file and the HRE: the HRE is a per-process
 * singleton read from a file, while each devnet here picks its chain id, port and start time.
 * The modules are Hardhat internals (the ones its own `createProvider` calls), safe to reach
 * because hardhat is pinned exactly; they load on first start, not at import.
 */
/** hardhat (the local chain) is a development dependency: absent from the binary and from production installs. */
export const DEVNET_NEEDS_DEV_INSTALL =
  'devnet needs the development install (hardhat is a dev dependency, absent from the single binary and from `npm ci --omit=dev`): run it from a source checkout after `npm ci`';

export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const port = options.port ?? 0;
  const chainId = options.chainId ?? DEFAULT_CHAIN_ID;
  const startTime = options.startTime ?? DEFAULT_START_TIME;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new VaultdError('USAGE', `devnet port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  if (!Number.isSafeInteger(chainId) || chainId < 1) {
    throw new VaultdError('USAGE', `devnet chain id must be a positive integer, got ${String(chainId)}`);
  }
  if (!Number.isSafeInteger(startTime) || startTime % HOUR !== 0 || startTime <= 0) {
    throw new VaultdError('USAGE', `devnet start time must be unix seconds on the hour, got ${String(startTime)}`);
  }

  const require = createRequire(import.meta.url);
  let hardhat: [typeof ProviderModule, typeof ServerModule, typeof DefaultConfigModule];
  try {
    hardhat = [
      require('hardhat/internal/hardhat-network/provider/provider') as typeof ProviderModule,
      require('hardhat/internal/hardhat-network/jsonrpc/server') as typeof ServerModule,
      require('hardhat/internal/core/config/default-config') as typeof DefaultConfigModule,
    ];
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw cause;
    throw new VaultdError('USAGE', DEVNET_NEEDS_DEV_INSTALL, { cause });
  }
  const [{ createHardhatNetworkProvider }, { JsonRpcServer }, { defaultHardhatNetworkParams: defaults }] = hardhat;

  const provider = await createHardhatNetworkProvider(
    {
      hardfork: defaults.hardfork,
      chainId,
      networkId: chainId,
      // room for the setup block (~0.5M gas a wallet); an ordinary hour uses a few million
      blockGasLimit: 1_000_000_000,
      minGasPrice: 0n,
      automine: false,
      intervalMining: 0,
      // first in, first mined: an hour's transactions land in the order they were sent
      mempoolOrder: 'fifo',
      chains: defaults.chains,
      // no funded accounts: the simulator impersonates its actors and pays zero fees
      genesisAccounts: [],
      initialBaseFeePerGas: 0,
      allowUnlimitedContractSize: false,
      throwOnTransactionFailures: true,
      throwOnCallFailures: true,
      allowBlocksWithSameTimestamp: false,
      initialDate: new Date(startTime * 1000),
      enableTransientStorage: false,
      enableRip7212: false,
    },
    { enabled: false },
  );

  const server = new JsonRpcServer({ hostname: '127.0.0.1', port, provider });
  const address = await listen(server, port);
  let stopped: Promise<void> | undefined;
  return {
    rpcUrl: `http://127.0.0.1:${address.port}`,
    chainId,
    startTime,
    provider,
    stop: () => (stopped ??= server.close()),
  };
}

/**
 * Hardhat's `listen` resolves on success only: a busy port surfaces as an 'error' event on its
 * WebSocket server (which re-emits the HTTP server's), unhandled, and kills the process. So we
 * listen for it on that private field (hardhat is pinned exactly) and reject instead.
 */
async function listen(server: ServerModule.JsonRpcServer, port: number): Promise<{ address: string; port: number }> {
  const ws = (server as unknown as { _wsServer: EventEmitter })._wsServer;
  let onError: (e: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    onError = (cause) => reject(new VaultdError('SOURCE_FAILED', `devnet could not listen on 127.0.0.1:${port}`, { cause }));
    ws.once('error', onError);
  });
  try {
    return await Promise.race([server.listen(), failed]);
  } finally {
    ws.off('error', onError);
  }
}

/** Closes the pending block at `timestamp` (on the hour), with every queued transaction. */
export async function mineBlockAt(provider: EIP1193Provider, timestamp: number): Promise<void> {
  await provider.request({ method: 'evm_mine', params: [timestamp] });
}

/**
 * Mines `count` empty blocks one hour apart, the first at `firstTimestamp`, in one call
 * (`hardhat_mine` alone would stamp its first block one second after the last).
 */
export async function mineEmptyHours(provider: EIP1193Provider, firstTimestamp: number, count: number): Promise<void> {
  if (count <= 0) return;
  await provider.request({ method: 'evm_setNextBlockTimestamp', params: [firstTimestamp] });
  await provider.request({ method: 'hardhat_mine', params: [`0x${count.toString(16)}`, `0x${HOUR.toString(16)}`] });
}

/** A viem chain for the devnet; `multicall3` lets viem batch reads (deployed in block 1). */
export function devnetChain(chainId: number, rpcUrl: string, multicall3?: Address): Chain {
  return defineChain({
    id: chainId,
    name: 'vaultd devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    ...(multicall3 === undefined ? {} : { contracts: { multicall3: { address: multicall3, blockCreated: 1 } } }),
    testnet: true,
  });
}

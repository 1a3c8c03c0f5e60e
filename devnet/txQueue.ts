// The simulator's only way to write to the devnet: transactions are queued into the pending
// block through the in-process provider (no HTTP, no signing: every actor is impersonated and
// pays zero fees), then `closeBlock` mines them at a chosen timestamp and checks every receipt.
// With automine off a revert would otherwise pass silently, so a failed transaction throws.
import {
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Abi,
  type Address,
  type ContractConstructorArgs,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type Hash,
  type Hex,
  type Log,
} from 'viem';
import { VaultdError } from '../common/errors.js';
import { loadArtifact, type ContractName } from './artifacts.js';
import { mineBlockAt, type EIP1193Provider } from './chain.js';

/** Gas limits are fixed (no estimation round-trips); with zero fees they cost nothing. */
const CALL_GAS = 1_000_000n;
const DEPLOY_GAS = 8_000_000n;

type Writable = 'nonpayable' | 'payable';

export interface WriteCall<abi extends Abi, name extends ContractFunctionName<abi, Writable>> {
  address: Address;
  abi: abi;
  functionName: name;
  args: ContractFunctionArgs<abi, Writable, name>;
}

/** The mined transaction as the simulator needs it: its logs, already in block order. */
export interface MinedTx {
  hash: Hash;
  blockNumber: bigint;
  logs: Log[];
}

export interface TxQueue {
  /** Queues a call from `from`; `onMined` runs, in send order, once its block is closed. */
  write<const abi extends Abi, name extends ContractFunctionName<abi, Writable>>(
    from: Address,
    call: WriteCall<abi, name>,
    onMined?: (tx: MinedTx) => void,
  ): Promise<void>;
  /** Queues a deployment; returns the address it will have (from the sender's nonce). */
  deploy<const abi extends Abi>(from: Address, name: ContractName, abi: abi, args: ContractConstructorArgs<abi>): Promise<Address>;
  /** Mines the pending block at `timestamp`, checks each receipt, runs the callbacks. */
  closeBlock(timestamp: number): Promise<{ transactions: number; logs: number }>;
  readonly stats: { transactions: number; logs: number; blocks: number };
  /** transactions mined per sender */
  readonly sent: ReadonlyMap<Address, number>;
}

interface Pending {
  hash: Hash;
  label: string;
  onMined?: ((tx: MinedTx) => void) | undefined;
  /** the address a deployment was promised at (checked against the receipt) */
  deploysTo?: Address | undefined;
}

interface RpcReceipt {
  status: Hex;
  contractAddress: Address | null;
  blockNumber: Hex;
  logs: (Omit<Log, 'blockNumber' | 'logIndex' | 'transactionIndex'> & { blockNumber: Hex; logIndex: Hex; transactionIndex: Hex })[];
}

export function createTxQueue(provider: EIP1193Provider): TxQueue {
  const impersonated = new Set<Address>();
  const nonces = new Map<Address, number>();
  let pending: Pending[] = [];
  const stats = { transactions: 0, logs: 0, blocks: 0 };
  const sent = new Map<Address, number>();

  /**
   * First use of an actor: impersonate it and learn its nonce (it may have sent before). At
   * 'latest', not 'pending': Hardhat builds the whole pending block to answer 'pending'.
   */
  async function ensureActor(from: Address): Promise<void> {
    const key = from.toLowerCase() as Address;
    if (impersonated.has(key)) return;
    await provider.request({ method: 'hardhat_impersonateAccount', params: [from] });
    impersonated.add(key);
    nonces.set(key, Number(await provider.request({ method: 'eth_getTransactionCount', params: [from, 'latest'] })));
  }

  async function send(from: Address, tx: { to?: Address; data: Hex; gas: bigint }, label: string, onMined?: (tx: MinedTx) => void, deploysTo?: Address) {
    const key = from.toLowerCase() as Address;
    await ensureActor(from);
    const request = { from, ...tx, gas: `0x${tx.gas.toString(16)}`, maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' };
    const hash = (await provider.request({ method: 'eth_sendTransaction', params: [request] })) as Hash;
    nonces.set(key, nonces.get(key)! + 1);
    pending.push({ hash, label, onMined, deploysTo });
    sent.set(from, (sent.get(from) ?? 0) + 1);
  }

  return {
    stats,
    sent,

    async write(from, call, onMined) {
      const data = encodeFunctionData({ abi: call.abi as Abi, functionName: call.functionName as string, args: call.args as readonly unknown[] });
      await send(from, { to: call.address, data, gas: CALL_GAS }, `${call.functionName} on ${call.address} from ${from}`, onMined);
    },

    async deploy(from, name, abi, args) {
      await ensureActor(from);
      const nonce = nonces.get(from.toLowerCase() as Address)!;
      const data = encodeDeployData({ abi: abi as Abi, bytecode: loadArtifact(name).bytecode, args: args as readonly unknown[] });
      const address = getContractAddress({ from, nonce: BigInt(nonce) });
      await send(from, { data, gas: DEPLOY_GAS }, `deploy ${name} from ${from}`, undefined, address);
      return address;
    },

    async closeBlock(timestamp) {
      const batch = pending;
      pending = [];
      await mineBlockAt(provider, timestamp);
      stats.blocks++;
      let logs = 0;
      let blockNumber: bigint | undefined;
      for (const p of batch) {
        const r = (await provider.request({ method: 'eth_getTransactionReceipt', params: [p.hash] })) as RpcReceipt | null;
        blockNumber ??= r === null ? undefined : BigInt(r.blockNumber);
        if (r === null || BigInt(r.blockNumber) !== blockNumber) {
          // the block filled up or the node dropped it: the hour's ordering would be wrong
          throw new VaultdError('SOURCE_FAILED', `devnet: ${p.label} was not mined in the block at ${timestamp}`, { details: { hash: p.hash } });
        }
        if (r.status !== '0x1') {
          throw new VaultdError('SOURCE_FAILED', `devnet: ${p.label} reverted in block ${blockNumber}`, { details: { hash: p.hash } });
        }
        if (p.deploysTo !== undefined && r.contractAddress?.toLowerCase() !== p.deploysTo.toLowerCase()) {
          throw new VaultdError('SOURCE_FAILED', `devnet: ${p.label} landed at ${r.contractAddress}, not ${p.deploysTo}`);
        }
        logs += r.logs.length;
        const parsed = r.logs.map((l) => ({ ...l, blockNumber, logIndex: Number(l.logIndex), transactionIndex: Number(l.transactionIndex) })) as Log[];
        p.onMined?.({ hash: p.hash, blockNumber: blockNumber!, logs: parsed });
      }
      stats.transactions += batch.length;
      stats.logs += logs;
      return { transactions: batch.length, logs };
    },
  };
}

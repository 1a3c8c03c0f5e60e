// Whether an RPC serves state at a past block: one eth_call there (to the zero address, which
// answers "0x" wherever the state is kept). A pruned node answers with the errors below; the
// hourly reads at past blocks (Multicall3) then cannot work, and vaultd says so once per chain.
import type { ChainRpc } from './chainRpc.js';
import { classifyRpcError } from './rpcErrors.js';

/** The words of pruned nodes (geth, erigon, reth, nethermind, and the hosted providers') for state they no longer keep. */
const NO_STATE =
  /missing trie node|header not found|state (?:is )?not available|state histor|historical state|pruned|old data not available|unknown block|required .*state|no state|state at block .* not|is not available|distance to target block/i;

export function isNoStateError(err: unknown): boolean {
  return NO_STATE.test(classifyRpcError(err).message);
}

/** The line an operator reads when the RPC serves no state at `block`. */
export function noArchiveLine(urls: string, block: number): string {
  return `RPC ${urls} serves no state at block ${block}: vaultd needs an archive node for history; set \`chains[].history_from\` to skip older hours`;
}

/** true: state served; false: the RPC says it has none at `block`. Other failures go through the retry policy. */
export async function probeArchive(rpc: Pick<ChainRpc, 'client' | 'retrying'>, block: number): Promise<boolean> {
  const call = () =>
    rpc.client.request({ method: 'eth_call', params: [{ to: '0x0000000000000000000000000000000000000000', data: '0x' }, `0x${block.toString(16)}`] } as never);
  try {
    await call();
    return true;
  } catch (err) {
    if (isNoStateError(err)) return false;
  }
  try {
    await rpc.retrying('archive probe', call);
    return true;
  } catch (err) {
    if (isNoStateError(err)) return false;
    throw err;
  }
}

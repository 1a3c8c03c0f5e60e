// With automine off a reverted transaction is mined quietly with status 0; the queue must not
// let one pass, or the scenario and the chain would disagree from then on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTokenAbi } from './abis.js';
import { HOUR, startDevnet, type Devnet } from './chain.js';
import { labelAddress } from './deploy.js';
import { createTxQueue } from './txQueue.js';

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet();
});
afterAll(async () => {
  await devnet?.stop();
});

describe('createTxQueue', () => {
  it('mines queued calls in send order and hands each its logs', async () => {
    const q = createTxQueue(devnet.provider);
    const alice = labelAddress('test-alice');
    const token = await q.deploy(alice, 'TestToken', testTokenAbi, ['Test', 'TST', 6]);
    const seen: number[] = [];
    await q.write(alice, { address: token, abi: testTokenAbi, functionName: 'mint', args: [alice, 5n] }, (tx) => seen.push(tx.logs.length));
    await q.write(alice, { address: token, abi: testTokenAbi, functionName: 'transfer', args: [labelAddress('test-bob'), 2n] }, (tx) =>
      seen.push(tx.logs.length),
    );
    expect(await q.closeBlock(devnet.startTime + HOUR)).toEqual({ transactions: 3, logs: 2 });
    expect(seen).toEqual([1, 1]);
    expect(q.sent.get(alice)).toBe(3);
  });

  it('error: a reverted transaction fails closeBlock, naming the call', async () => {
    const q = createTxQueue(devnet.provider);
    const carol = labelAddress('test-carol');
    const token = await q.deploy(carol, 'TestToken', testTokenAbi, ['Test', 'TST', 6]);
    await q.write(carol, { address: token, abi: testTokenAbi, functionName: 'transfer', args: [carol, 1n] });
    await expect(q.closeBlock(devnet.startTime + 2 * HOUR)).rejects.toThrow(`devnet: transfer on ${token} from ${carol} reverted in block 2`);
  });
});

import fc from 'fast-check';
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, type AbiParameter, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { LEDGERS, type Emitter, type LedgerVault } from '../../families/index.js';
import { LEDGER_SPECS, type EventSpec } from './chainAbis.js';
import type { RawLog } from '../evm/chainRpc.js';
import { decodeChainLog } from './decodeLog.js';

const specs = [...LEDGER_SPECS.values()].flatMap((s) => [...s.byTopic.values()]);

/** A contract of `role` in a vault of the ledger named `ledger`. */
function from(ledger: string, role = 'vault'): Emitter {
  return { ledger: LEDGERS.find((l) => l.name === ledger)!, role, vault: {} as LedgerVault };
}

function arb(type: string): fc.Arbitrary<unknown> {
  if (type === 'address') return fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
  if (type === 'bytes32') return fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
  if (type === 'bool') return fc.boolean();
  const bits = Number(/^uint(\d+)$/.exec(type)![1]);
  return fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
}

function encodeLog(spec: EventSpec, args: Record<string, unknown>, emitter = '0x00000000000000000000000000000000000000aa'): RawLog {
  const indexed = spec.abi.inputs.filter((p) => p.indexed);
  const plain = spec.abi.inputs.filter((p) => !p.indexed) as AbiParameter[];
  const topics = encodeEventTopics({ abi: [spec.abi], args: Object.fromEntries(indexed.map((p) => [p.name!, args[p.name!]])) as never }) as Hex[];
  const data = encodeAbiParameters(plain, plain.map((p) => args[p.name!]) as never);
  return { address: emitter, topics, data, blockNumber: 1, blockHash: `0x${'1'.repeat(64)}`, transactionHash: `0x${'2'.repeat(64)}`, logIndex: 0 };
}

describe('decodeChainLog', () => {
  it('knows every event of every ledger, both Provisioner versions with their own topic0', () => {
    expect(specs.length).toBe(LEDGERS.reduce((n, l) => n + Object.keys(l.events).length, 0));
    const byName = new Map(specs.map((s) => [s.name, s.topic0]));
    expect(byName.get('DepositRequestedV1')).not.toBe(byName.get('DepositRequestedV2'));
    expect(byName.get('RedeemRequestedV1')).not.toBe(byName.get('RedeemRequestedV2'));
  });

  it.each(specs.map((s) => [`${s.ledger.name} ${s.name}`, s] as const))('property: %s decodes like viem’s strict decoder', (_, spec) => {
    const shape = Object.fromEntries(spec.abi.inputs.map((p) => [p.name!, arb(p.type)]));
    fc.assert(
      fc.property(fc.record(shape), (args) => {
        const log = encodeLog(spec, args);
        const r = decodeChainLog(log, { ledger: spec.ledger, role: spec.emitters[0]!, vault: {} as LedgerVault });
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const viem = decodeEventLog({ abi: [spec.abi], data: log.data, topics: log.topics as [Hex, ...Hex[]], strict: true }).args as Record<string, unknown>;
        // small uints come back as bigint (viem gives numbers below 49 bits)
        for (const [k, v] of Object.entries(viem))
          expect(r.decoded.args[k]).toEqual(typeof v === 'string' ? v.toLowerCase() : typeof v === 'number' ? BigInt(v) : v);
        expect(r.decoded.name).toBe(spec.name);
      }),
      { numRuns: 40 },
    );
  });

  const transfer = specs.find((s) => s.name === 'Transfer')!;
  const fees = specs.find((s) => s.name === 'VaultFeesSet')!;
  const requested = specs.find((s) => s.name === 'DepositRequestedV1')!;
  const base = encodeLog(transfer, { from: `0x${'ab'.repeat(20)}`, to: `0x${'cd'.repeat(20)}`, value: 5n });

  it('bad data: unknown topic0, wrong emitter, wrong lengths, bad words — skipped with a reason', () => {
    expect(decodeChainLog({ ...base, topics: [`0x${'ee'.repeat(32)}`] }, from('morpho'))).toEqual({
      ok: false,
      reason: 'unknown_topic',
      detail: `topic0 0x${'ee'.repeat(32)}`,
    });
    expect(decodeChainLog({ ...base, topics: [] }, from('morpho'))).toMatchObject({ ok: false, reason: 'unknown_topic' });
    expect(decodeChainLog(base, from('aera', 'provisioner'))).toEqual({
      ok: false,
      reason: 'unexpected_emitter',
      detail: 'Transfer from a provisioner address',
    });
    // an event another ledger reads: a Morpho Deposit from an Aera vault
    const deposit = specs.find((s) => s.name === 'Deposit')!;
    const d = encodeLog(deposit, { sender: `0x${'ab'.repeat(20)}`, owner: `0x${'cd'.repeat(20)}`, assets: 1n, shares: 1n });
    expect(decodeChainLog(d, from('aera'))).toEqual({ ok: false, reason: 'unexpected_emitter', detail: 'Deposit from a aera address' });
    expect(decodeChainLog(d, from('morpho'))).toMatchObject({ ok: true });
    expect(decodeChainLog(base, null)).toMatchObject({ ok: false, reason: 'unexpected_emitter' });
    expect(decodeChainLog({ ...base, data: '0x0000000005' }, from('morpho'))).toEqual({
      ok: false,
      reason: 'malformed_log',
      detail: 'Transfer: 3 topics and 5 data bytes, expected 3 and 32',
    });
    expect(decodeChainLog({ ...base, data: `${base.data}00` as Hex }, from('morpho'))).toMatchObject({ reason: 'malformed_log' });
    expect(decodeChainLog({ ...base, topics: base.topics.slice(0, 2) }, from('aera'))).toMatchObject({ reason: 'malformed_log' });
    // an address topic with non-zero padding
    expect(decodeChainLog({ ...base, topics: [base.topics[0]!, `0x${'ff'.repeat(32)}`, base.topics[2]!] }, from('morpho'))).toEqual({
      ok: false,
      reason: 'malformed_log',
      detail: 'Transfer: from is not a valid address',
    });
    // uint16 above 65535
    const f = encodeLog(fees, { vault: `0x${'01'.repeat(20)}`, tvlFee: 1, performanceFee: 2 });
    expect(decodeChainLog({ ...f, data: `0x${'00'.repeat(31)}01${'00'.repeat(29)}010000` as Hex }, from('aera', 'calculator'))).toMatchObject({
      reason: 'malformed_log',
      detail: 'VaultFeesSet: performanceFee is not a valid uint16',
    });
    // a bool word that is neither 0 nor 1
    const r = encodeLog(requested, {
      user: `0x${'01'.repeat(20)}`,
      token: `0x${'02'.repeat(20)}`,
      tokensIn: 1n,
      minUnitsOut: 1n,
      solverTip: 0n,
      deadline: 9n,
      maxPriceAge: 9n,
      isFixedPrice: true,
      depositRequestHash: `0x${'03'.repeat(32)}`,
    });
    const words = r.data.slice(2).match(/.{64}/g)!;
    words[5] = `${'0'.repeat(63)}2`;
    expect(decodeChainLog({ ...r, data: `0x${words.join('')}` as Hex }, from('aera', 'provisioner'))).toMatchObject({
      reason: 'malformed_log',
      detail: 'DepositRequestedV1: isFixedPrice is not a valid bool',
    });
  });
});

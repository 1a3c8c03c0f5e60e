// The families' ledgers (families/*/ledger.ts) as the indexer reads them: each event parsed from
// its Solidity signature once (topic0, the topic count and data length a well-formed log has),
// each view function as a one-item ABI. Parsed from the real contracts' signatures, not the
// devnet's ABIs: the indexer is the same code that points at a public RPC.
import { parseAbiItem, toEventSelector, type Abi, type AbiEvent, type AbiFunction } from 'viem';
import { VaultdError } from '../../common/errors.js';
import { LEDGERS, type Ledger, type LedgerCall } from '../../families/index.js';
import type { ReadCall } from './multicallReader.js';

export interface EventSpec {
  ledger: Ledger;
  /** the ledger's name for it (two versions of one event have two names and two topic0s) */
  name: string;
  abi: AbiEvent;
  topic0: string;
  /** topics a well-formed log carries: 1 + indexed parameters */
  topics: number;
  /** data bytes a well-formed log carries (every non-indexed parameter a ledger reads is static) */
  dataBytes: number;
  /** roles whose contracts may emit it */
  emitters: readonly string[];
}

export interface LedgerSpecs {
  /** topic0 → the event */
  byTopic: ReadonlyMap<string, EventSpec>;
  /** Solidity text → its one-item ABI and name */
  functions: ReadonlyMap<string, { abi: Abi; functionName: string }>;
}

function specsOf(ledger: Ledger): LedgerSpecs {
  const byTopic = new Map<string, EventSpec>();
  for (const [name, e] of Object.entries(ledger.events)) {
    const abi = parseAbiItem(e.signature) as AbiEvent;
    const indexed = abi.inputs.filter((p) => p.indexed).length;
    const topic0 = toEventSelector(abi);
    if (byTopic.has(topic0)) throw new VaultdError('INTERNAL', `ledger ${ledger.name}: ${name} and ${byTopic.get(topic0)!.name} share a topic0`);
    byTopic.set(topic0, { ledger, name, abi, topic0, topics: 1 + indexed, dataBytes: 32 * (abi.inputs.length - indexed), emitters: e.emitters });
  }
  const functions = new Map<string, { abi: Abi; functionName: string }>();
  for (const signature of ledger.functions) {
    const item = parseAbiItem(signature) as AbiFunction;
    functions.set(signature, { abi: [item], functionName: item.name });
  }
  return { byTopic, functions };
}

/** Every ledger's parsed events and functions (immutable once built, at import). */
export const LEDGER_SPECS: ReadonlyMap<Ledger, LedgerSpecs> = new Map(LEDGERS.map((l) => [l, specsOf(l)]));

/** Any ledger's event by topic0: a log no ledger knows is `unknown_topic`, one another ledger or role emits `unexpected_emitter`. */
export const KNOWN_TOPICS: ReadonlyMap<string, EventSpec> = (() => {
  const known = new Map<string, EventSpec>();
  for (const s of LEDGER_SPECS.values()) for (const [topic0, spec] of s.byTopic) if (!known.has(topic0)) known.set(topic0, spec);
  return known;
})();

/** A ledger's view call as a multicall read. */
export function readCall(ledger: Ledger, call: LedgerCall): ReadCall {
  const f = LEDGER_SPECS.get(ledger)?.functions.get(call.fn);
  if (!f) throw new VaultdError('INTERNAL', `ledger ${ledger.name} calls "${call.fn}", which it does not list in its functions`);
  return { address: call.address, abi: f.abi, functionName: f.functionName, ...(call.args ? { args: call.args } : {}) };
}

/** Multicall3's canonical address (the same on most chains); a chain may list its own. */
export const CANONICAL_MULTICALL3 = '0xca11bde05977b3631167028862be2a173976ca11';

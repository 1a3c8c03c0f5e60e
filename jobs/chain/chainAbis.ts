// The events of DESIGN §6.1 exactly as the real contracts declare them, and the few view
// functions the indexer reads. Parsed from the signatures (not the devnet's ABIs): the indexer
// is the same code that points at a public RPC.
import { parseAbi, parseAbiItem, toEventSelector, type AbiEvent, type Hex } from 'viem';

/** Internal names; the two Provisioner versions' *Requested events get a V1/V2 suffix. */
export const EVENT_SIGNATURES = {
  Deposit: 'event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares)',
  Withdraw: 'event Withdraw(address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares)',
  Transfer: 'event Transfer(address indexed from, address indexed to, uint256 value)',
  Approval: 'event Approval(address indexed owner, address indexed spender, uint256 value)',
  AccrueInterest: 'event AccrueInterest(uint256 newTotalAssets, uint256 feeShares)',
  SetFee: 'event SetFee(address indexed caller, uint256 newFee)',
  SetCurator: 'event SetCurator(address indexed newCurator)',
  Enter: 'event Enter(address indexed sender, address indexed recipient, address indexed token, uint256 tokenAmount, uint256 unitsAmount)',
  Exit: 'event Exit(address indexed sender, address indexed recipient, address indexed token, uint256 tokenAmount, uint256 unitsAmount)',
  DepositRequestedV1:
    'event DepositRequested(address indexed user, address indexed token, uint256 tokensIn, uint256 minUnitsOut, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 depositRequestHash)',
  RedeemRequestedV1:
    'event RedeemRequested(address indexed user, address indexed token, uint256 minTokensOut, uint256 unitsIn, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 redeemRequestHash)',
  DepositRequestedV2:
    'event DepositRequested(address indexed user, address indexed receiver, address indexed token, uint256 tokensIn, uint256 minUnitsOut, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 depositRequestHash)',
  RedeemRequestedV2:
    'event RedeemRequested(address indexed user, address indexed receiver, address indexed token, uint256 minTokensOut, uint256 unitsIn, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 redeemRequestHash)',
  DepositSolved: 'event DepositSolved(bytes32 indexed depositHash)',
  RedeemSolved: 'event RedeemSolved(bytes32 indexed redeemHash)',
  DepositRefunded: 'event DepositRefunded(bytes32 indexed depositHash)',
  RedeemRefunded: 'event RedeemRefunded(bytes32 indexed redeemHash)',
  Deposited: 'event Deposited(address indexed user, address indexed token, uint256 tokensIn, uint256 unitsOut, bytes32 depositHash)',
  Redeemed: 'event Redeemed(address indexed user, address indexed receiver, address indexed token, uint256 unitsIn, uint256 tokensOut)',
  UnitPriceUpdated: 'event UnitPriceUpdated(address indexed vault, uint128 price, uint32 timestamp)',
  VaultFeesSet: 'event VaultFeesSet(address indexed vault, uint16 tvlFee, uint16 performanceFee)',
} as const;

export type EventName = keyof typeof EVENT_SIGNATURES;

/** Which registered contract may emit an event: a vault (by family), a provisioner, a calculator. */
export type Emitter = 'morpho' | 'aera' | 'provisioner' | 'calculator';

const EMITTERS: Record<EventName, readonly Emitter[]> = {
  Deposit: ['morpho'],
  Withdraw: ['morpho'],
  Transfer: ['morpho', 'aera'],
  Approval: ['morpho', 'aera'],
  AccrueInterest: ['morpho'],
  SetFee: ['morpho'],
  SetCurator: ['morpho'],
  Enter: ['aera'],
  Exit: ['aera'],
  DepositRequestedV1: ['provisioner'],
  RedeemRequestedV1: ['provisioner'],
  DepositRequestedV2: ['provisioner'],
  RedeemRequestedV2: ['provisioner'],
  DepositSolved: ['provisioner'],
  RedeemSolved: ['provisioner'],
  DepositRefunded: ['provisioner'],
  RedeemRefunded: ['provisioner'],
  Deposited: ['provisioner'],
  Redeemed: ['provisioner'],
  UnitPriceUpdated: ['calculator'],
  VaultFeesSet: ['calculator'],
};

export interface EventSpec {
  name: EventName;
  abi: AbiEvent;
  topic0: Hex;
  /** topics a well-formed log carries: 1 + indexed parameters */
  topics: number;
  /** data bytes a well-formed log carries (every non-indexed parameter here is static) */
  dataBytes: number;
  emitters: readonly Emitter[];
}

/** topic0 → spec. Two versions of one event name have two entries (their topic0s differ). */
export const EVENTS_BY_TOPIC: ReadonlyMap<string, EventSpec> = new Map(
  (Object.keys(EVENT_SIGNATURES) as EventName[]).map((name) => {
    const abi = parseAbiItem(EVENT_SIGNATURES[name]) as AbiEvent;
    const indexed = abi.inputs.filter((p) => p.indexed).length;
    const spec: EventSpec = {
      name,
      abi,
      topic0: toEventSelector(abi),
      topics: 1 + indexed,
      dataBytes: 32 * (abi.inputs.length - indexed),
      emitters: EMITTERS[name],
    };
    return [spec.topic0, spec];
  }),
);

/** The view functions read for hourly snapshots and the registry's definition fields. */
export const vaultReadAbi = parseAbi([
  'function totalAssets() view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function owner() view returns (address)',
  'function curator() view returns (address)',
  'function fee() view returns (uint256)',
  'function feeRecipient() view returns (address)',
  'function timelock() view returns (uint256)',
]);

export const calculatorReadAbi = parseAbi([
  /** Aera v3: numeraire base units worth `units` (1e18 units = one whole unit) */
  'function convertUnitsToNumeraire(address vault, uint256 units) view returns (uint256)',
  'function vaultState(address vault) view returns (uint128 unitPrice, uint32 timestamp, uint16 tvlFee, uint16 performanceFee)',
]);

/** Multicall3's canonical address (the same on most chains); a chain may list its own. */
export const CANONICAL_MULTICALL3 = '0xca11bde05977b3631167028862be2a173976ca11';

// Classifies what an RPC call threw: retryable (timeouts, 429, 5xx, truncated or garbage
// responses, a lagging node) or not (bad params, auth, reverts), and, for eth_getLogs, the block
// range the provider will accept, parsed from the message styles of the big providers.
import { VaultdError } from '../../common/errors.js';

export type RpcFaultKind =
  | 'range' // the block range or the result set was too large: shrink the range, do not count a retry
  | 'rate_limited'
  | 'timeout'
  | 'server' // 5xx, internal errors, a node that has not seen the block yet
  | 'network' // connection refused or reset, fetch failed
  | 'garbage' // a body that is not JSON, or JSON of the wrong shape
  | 'reverted'
  | 'fatal';

export type RangeHint =
  /** the provider names a range that will work (Alchemy, Infura) */
  | { kind: 'suggested'; from: number; to: number }
  /** the provider names its maximum span in blocks */
  | { kind: 'max'; blocks: number }
  /** too large, no size given: halve */
  | { kind: 'shrink' };

export interface RpcFault {
  kind: RpcFaultKind;
  retryable: boolean;
  /** the provider's words (never the request body, which may carry a keyed URL) */
  message: string;
  range?: RangeHint;
  retryAfterMs?: number;
}

/** A response that parsed but has the wrong shape: retried like a truncated one. */
export function garbageError(what: string, value: unknown): VaultdError {
  const shown = JSON.stringify(value)?.slice(0, 80) ?? String(value);
  return new VaultdError('SOURCE_FAILED', `RPC returned garbage for ${what}: ${shown}`, { retryable: true, details: { kind: 'garbage' } });
}

const num = (s: string): number => (s.startsWith('0x') || s.startsWith('0X') ? Number.parseInt(s, 16) : Number(s.replace(/[,_]/g, '')));

const SUGGESTED = /\[\s*(0x[0-9a-f]+|\d+)\s*,\s*(0x[0-9a-f]+|\d+)\s*\]/i;
const MAX_BLOCKS = [
  // "exceed maximum block range: 2000", "max block range is 1000", "maximum block range of 5000"
  /max(?:imum)?\s+(?:allowed\s+)?block\s+range(?:\s+(?:is|of))?\s*:?\s*([\d,_]+)\s*(k)?/i,
  // "eth_getLogs is limited to a 10,000 range", "limited to 2000 blocks"
  /limited\s+to\s+(?:a\s+)?([\d,_]+)\s*(k)?\s*(?:block)?s?\s*range/i,
  /limited\s+to\s+(?:a\s+)?([\d,_]+)\s*(k)?\s*blocks/i,
  // "up to a 2K block range", "block range should not exceed 1024", "range is too large, max is 1k blocks"
  /up\s+to\s+(?:a\s+)?([\d,_]+)\s*(k)?\s*block\s+range/i,
  /block\s+range\s+(?:should|must)\s+not\s+exceed\s+([\d,_]+)\s*(k)?/i,
  /range\s+(?:is\s+)?too\s+(?:large|big|wide)[^\d]{0,20}max(?:imum)?\s+(?:is\s+)?([\d,_]+)\s*(k)?/i,
  // "maximum [from, to] blocks distance: 3500"
  /blocks?\s+distance\s*:?\s*([\d,_]+)\s*(k)?/i,
];
const TOO_LARGE =
  /block range|range (?:is )?too (?:large|big|wide)|too many (?:results|logs|blocks)|more than [\d,]+ (?:results|logs)|response size|result set too large|query returned more than|logs? response size exceeded|query timeout exceeded|reduce (?:your|the) (?:block )?range|exceeds? (?:the )?max(?:imum)? (?:number of )?(?:results|logs)/i;

/**
 * The range a provider asks for in an eth_getLogs error message, or null if the message is
 * not about the range. Alchemy's "[0x…, 0x…]" suggestion wins over a stated maximum.
 */
export function parseRangeHint(message: string): RangeHint | null {
  const pair = SUGGESTED.exec(message);
  if (pair && TOO_LARGE.test(message)) {
    const from = num(pair[1]!);
    const to = num(pair[2]!);
    if (Number.isSafeInteger(from) && Number.isSafeInteger(to) && to >= from) return { kind: 'suggested', from, to };
  }
  for (const re of MAX_BLOCKS) {
    const m = re.exec(message);
    if (!m) continue;
    const blocks = num(m[1]!) * (m[2] ? 1000 : 1);
    if (Number.isSafeInteger(blocks) && blocks > 0) return { kind: 'max', blocks };
  }
  return TOO_LARGE.test(message) ? { kind: 'shrink' } : null;
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  details?: unknown;
  shortMessage?: unknown;
  status?: unknown;
  code?: unknown;
  cause?: unknown;
  headers?: { get(name: string): string | null } | unknown;
}

/** The error chain, outermost first (bounded: causes can be cyclic in theory). */
function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let e: unknown = err;
  while (e && typeof e === 'object' && out.length < 8) {
    out.push(e as ErrorLike);
    e = (e as ErrorLike).cause;
  }
  return out;
}

const RATE_LIMITED =
  /rate.?limit|too many requests|exceeded .*(?:rate|requests? (?:per|limit)|capacity|compute units|throughput|quota)|request limit|throttl|daily request count/i;
const LAGGING = /header not found|unknown block|block not found|missing trie node|not (?:yet )?(?:synced|available)|resource unavailable|try again/i;
const REVERTED = /execution reverted|revert(?:ed)?\b|invalid opcode|out of gas/i;
const TIMEOUT = /timed? ?out|timeout|took too long|ETIMEDOUT/i;
const NETWORK = /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed|network|terminated|UND_ERR/i;

export function classifyRpcError(err: unknown): RpcFault {
  const links = chain(err);
  // ours, possibly wrapped by viem (a garbage eth_call result inside a CallExecutionError)
  const own = links.find((e): e is VaultdError => e instanceof VaultdError);
  if (own) {
    const kind = ((own.details as { kind?: RpcFaultKind } | undefined)?.kind ?? (own.retryable ? 'server' : 'fatal')) as RpcFaultKind;
    return { kind, retryable: own.retryable, message: own.message };
  }
  // Viem puts the provider's words in `details` (carried up the chain); `message` of viem
  // errors also holds the request body, so it is read only for non-viem errors.
  const texts: string[] = [];
  let status: number | undefined;
  let code: number | undefined;
  let retryAfterMs: number | undefined;
  let syntax = false;
  let timeout = false;
  let contractLevel = false;
  for (const e of links) {
    // viem's contract and call wrappers restate the cause in their own words ("… reverted with
    // the following reason: Internal error"): only the transport's and the provider's count
    if (typeof e.name === 'string' && /^(Contract|Call|RawContract)/.test(e.name)) {
      contractLevel ||= /Reverted|ZeroData|RawContract/.test(e.name);
    } else if (typeof e.details === 'string') texts.push(e.details);
    else if (typeof e.shortMessage !== 'string' && typeof e.message === 'string') texts.push(e.message);
    if (typeof e.shortMessage === 'string' && !(typeof e.name === 'string' && /^(Contract|Call)/.test(e.name))) texts.push(e.shortMessage);
    if (status === undefined && typeof e.status === 'number') status = e.status;
    if (code === undefined && typeof e.code === 'number') code = e.code;
    if (e.name === 'SyntaxError') syntax = true;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') timeout = true;
    const headers = e.headers as { get?: (n: string) => string | null } | undefined;
    const after = typeof headers?.get === 'function' ? headers.get('retry-after') : null;
    if (retryAfterMs === undefined && after && /^\d+$/.test(after.trim())) retryAfterMs = Number(after.trim()) * 1000;
  }
  const message = [...new Set(texts)].join(' | ').slice(0, 500) || String(err);
  const fault = (kind: RpcFaultKind, retryable: boolean, extra: Partial<RpcFault> = {}): RpcFault => ({
    kind,
    retryable,
    message,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...extra,
  });

  const range = parseRangeHint(message);
  if (range) return fault('range', true, { range });
  // viem refuses a body over its size limit (10 MB) before parsing it: ask for a smaller range
  if (links.some((e) => e.name === 'ResponseBodyTooLargeError')) return fault('range', true, { range: { kind: 'shrink' } });
  if (status === 429 || code === 429 || RATE_LIMITED.test(message)) return fault('rate_limited', true);
  if (code === -32005) return fault('rate_limited', true); // LimitExceeded without a range message
  if (timeout || status === 408 || status === 504 || TIMEOUT.test(message)) return fault('timeout', true);
  if (syntax || code === -32700) return fault('garbage', true);
  if (status !== undefined && status >= 500) return fault('server', true);
  if (status !== undefined && status >= 400) return fault('fatal', false);
  if (code === 3 || REVERTED.test(message)) return fault('reverted', false);
  if (code === -32601 || code === -32602 || code === -32600) return fault('fatal', false);
  if (code === -32603 || code === -32002 || LAGGING.test(message)) return fault('server', true);
  // viem's decoders fail on a body of the right JSON type but nonsense hex
  if (
    links.some(
      (e) => typeof e.name === 'string' && /^(AbiDecoding|InvalidHex|PositionOutOfBounds|SizeExceeds|IntegerOutOfRange|InvalidBytesBoolean)/.test(e.name),
    )
  ) {
    return fault('garbage', true);
  }
  if (links.some((e) => e.name === 'HttpRequestError') || NETWORK.test(message)) return fault('network', true);
  if (contractLevel) return fault('reverted', false);
  return fault('fatal', false);
}

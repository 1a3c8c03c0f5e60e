import {
  HttpRequestError,
  InternalRpcError,
  InvalidInputRpcError,
  InvalidParamsRpcError,
  LimitExceededRpcError,
  MethodNotFoundRpcError,
  RpcRequestError,
  TimeoutError,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { VaultdError } from '../../common/errors.js';
import { classifyRpcError, garbageError, parseRangeHint } from './rpcErrors.js';
import { rangeError, RANGE_STYLES } from '../../test/helpers/chain/faultyRpcProxy.js';

const url = 'http://127.0.0.1:8545/secret-key';
const body = { method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: '0x2' }] };
const rpc = (code: number, message: string) => new RpcRequestError({ body, error: { code, message }, url });

describe('parseRangeHint: the big providers’ eth_getLogs messages', () => {
  it.each([
    [
      'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x10, 0x2f]',
      { kind: 'suggested', from: 16, to: 47 },
    ],
    ['query returned more than 10000 results. Try with this block range [0x1E8480, 0x1E8867].', { kind: 'suggested', from: 2_000_000, to: 2_000_999 }],
    ['exceed maximum block range: 2000', { kind: 'max', blocks: 2000 }],
    ['eth_getLogs is limited to a 10,000 range', { kind: 'max', blocks: 10_000 }],
    ['eth_getLogs and eth_newFilter are limited to a 10,000 blocks range', { kind: 'max', blocks: 10_000 }],
    ['block range is too large, max is 1k blocks', { kind: 'max', blocks: 1000 }],
    ['maximum [from, to] blocks distance: 3500', { kind: 'max', blocks: 3500 }],
    ['Block range should not exceed 1024', { kind: 'max', blocks: 1024 }],
    ['block range is too large', { kind: 'shrink' }],
    ['Log response size exceeded.', { kind: 'shrink' }],
    ['query returned more than 10000 results', { kind: 'shrink' }],
    ['Query timeout exceeded. Consider reducing your block range.', { kind: 'shrink' }],
  ])('%s', (message, hint) => {
    expect(parseRangeHint(message)).toEqual(hint);
  });

  it('not a range message: null', () => {
    expect(parseRangeHint('execution reverted')).toBeNull();
    expect(parseRangeHint('Too Many Requests')).toBeNull();
    expect(parseRangeHint('header not found')).toBeNull();
  });

  it('the fault proxy speaks every style this parser reads', () => {
    for (const style of RANGE_STYLES) {
      const { message } = rangeError(style, 100, 25);
      const hint = parseRangeHint(message);
      expect(hint, style).not.toBeNull();
      if (hint!.kind === 'suggested') expect(hint).toEqual({ kind: 'suggested', from: 100, to: 124 });
      if (hint!.kind === 'max') expect(hint).toEqual({ kind: 'max', blocks: 25 });
    }
  });
});

describe('classifyRpcError', () => {
  it('range errors behind viem’s wrappers, with the provider’s words and never the request body', () => {
    const f = classifyRpcError(new InvalidParamsRpcError(rpc(-32602, 'exceed maximum block range: 5000')));
    expect(f).toMatchObject({ kind: 'range', retryable: true, range: { kind: 'max', blocks: 5000 } });
    expect(f.message).toContain('exceed maximum block range: 5000');
    expect(f.message).not.toContain('secret-key');
    expect(
      classifyRpcError(new LimitExceededRpcError(rpc(-32005, 'query returned more than 10000 results. Try with this block range [0x1, 0x9].'))).range,
    ).toEqual({
      kind: 'suggested',
      from: 1,
      to: 9,
    });
  });

  it('429 and rate-limit messages: rate_limited, retryable, Retry-After honoured', () => {
    const headers = new Headers({ 'retry-after': '2' });
    expect(classifyRpcError(new HttpRequestError({ url, body, status: 429, details: 'Too Many Requests', headers }))).toMatchObject({
      kind: 'rate_limited',
      retryable: true,
      retryAfterMs: 2000,
    });
    expect(classifyRpcError(new LimitExceededRpcError(rpc(-32005, 'daily request count exceeded, request rate limited')))).toMatchObject({
      kind: 'rate_limited',
      retryable: true,
    });
  });

  it('timeouts, 5xx, internal errors, lagging nodes, dropped connections, truncated bodies: retryable', () => {
    expect(classifyRpcError(new TimeoutError({ body, url }))).toMatchObject({ kind: 'timeout', retryable: true });
    expect(classifyRpcError(new HttpRequestError({ url, body, status: 502, details: 'Bad Gateway' }))).toMatchObject({ kind: 'server', retryable: true });
    expect(classifyRpcError(new InternalRpcError(rpc(-32603, 'Internal error')))).toMatchObject({ kind: 'server', retryable: true });
    expect(classifyRpcError(new InvalidInputRpcError(rpc(-32000, 'header not found')))).toMatchObject({ kind: 'server', retryable: true });
    expect(classifyRpcError(new HttpRequestError({ url, body, cause: new TypeError('fetch failed') }))).toMatchObject({ kind: 'network', retryable: true });
    const truncated = new HttpRequestError({ url, body, cause: new SyntaxError('Unexpected end of JSON input') });
    expect(classifyRpcError(truncated)).toMatchObject({ kind: 'garbage', retryable: true });
    expect(classifyRpcError(garbageError('eth_blockNumber', '0xzz'))).toMatchObject({
      kind: 'garbage',
      retryable: true,
      message: 'RPC returned garbage for eth_blockNumber: "0xzz"',
    });
  });

  it('bad params, unknown methods, auth failures and reverts: not retryable', () => {
    expect(classifyRpcError(new InvalidParamsRpcError(rpc(-32602, 'invalid argument 0: hex string without 0x prefix')))).toMatchObject({
      kind: 'fatal',
      retryable: false,
    });
    expect(classifyRpcError(new MethodNotFoundRpcError(rpc(-32601, 'the method eth_foo does not exist')))).toMatchObject({ kind: 'fatal', retryable: false });
    expect(classifyRpcError(new HttpRequestError({ url, body, status: 401, details: 'Unauthorized' }))).toMatchObject({ kind: 'fatal', retryable: false });
    expect(classifyRpcError(new InvalidInputRpcError(rpc(-32000, 'execution reverted')))).toMatchObject({ kind: 'reverted', retryable: false });
    expect(classifyRpcError(new TypeError('x is not a function'))).toMatchObject({ kind: 'fatal', retryable: false });
  });

  it('a VaultdError keeps its own retryability', () => {
    expect(classifyRpcError(new VaultdError('SOURCE_FAILED', 'x', { retryable: true }))).toMatchObject({ retryable: true, kind: 'server' });
    expect(classifyRpcError(new VaultdError('CONFIG_INVALID', 'y'))).toMatchObject({ retryable: false, kind: 'fatal' });
  });
});

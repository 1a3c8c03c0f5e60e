import { describe, expect, it } from 'vitest';
import { oneLineError } from './oneLine.js';

describe('oneLineError', () => {
  it('keeps the first line and names hosts, never paths or keys', () => {
    const viem =
      'HTTP request failed.\n\nStatus: 401\nURL: https://eth-mainnet.g.alchemy.com/v2/SECRETKEY123\nRequest body: {"method":"eth_blockNumber"}\n\nVersion: viem@2.57.1';
    expect(oneLineError(viem)).toBe('HTTP request failed.');
    expect(oneLineError('GET https://api.example.com/prices?apikey=SECRET failed (timeout)')).toBe('GET https://api.example.com failed (timeout)');
    expect(oneLineError('connect to wss://node.example:8546/ws/KEY refused')).toBe('connect to wss://node.example:8546 refused');
    expect(oneLineError('\n\n')).toBe('unknown error');
    expect(oneLineError('x'.repeat(500))).toHaveLength(300);
  });
});

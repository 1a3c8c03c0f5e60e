import { describe, expect, it } from 'vitest';
import { parseTopic } from './topics.js';

describe('parseTopic', () => {
  it('fixed topics, and vault / wallet topics normalized as REST normalizes their ids', () => {
    expect(parseTopic('vaults')).toEqual({ kind: 'vaults', name: 'vaults' });
    expect(parseTopic('vault:eip155:1:0x8EB67A509616CD6A7C1B3C8C21D48FF57DF3D458').name).toBe('vault:1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458');
    expect(parseTopic('wallet:0xAbCdEf0000000000000000000000000000000001')).toEqual({
      kind: 'wallet',
      name: 'wallet:0xabcdef0000000000000000000000000000000001',
      wallet: '0xabcdef0000000000000000000000000000000001',
    });
  });

  it('error: unknown names and malformed ids, with exact messages', () => {
    expect(() => parseTopic('prices')).toThrow('invalid topic "prices" is not a topic; use vaults, tvl, health, vault:{vault_id} or wallet:{address}');
    expect(() => parseTopic('vault:1:0x12')).toThrow(
      'invalid topic "vault:1:0x12": the vault id must be {chainId}:{address}, e.g. vault:1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458',
    );
    expect(() => parseTopic('wallet:nope')).toThrow('invalid topic "wallet:nope": the address must be a 0x-prefixed 20-byte hex address');
    expect(() => parseTopic(42)).toThrow('invalid topic 42 is not a topic name');
  });
});

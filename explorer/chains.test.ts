import { describe, expect, it } from 'vitest';
import { chainNamesOf, createChains } from './chains.js';
import { familyName } from './families.js';

describe('chains', () => {
  it('names from the API first, then the built-in table, else the id', () => {
    const chains = createChains(
      chainNamesOf([
        { id: 'chain:10', label: 'OP Mainnet' },
        { id: 'chain:8453', label: 'Base' },
        { id: 'vaults', label: 'x' },
      ]),
    );
    expect(chains.name(10)).toBe('OP Mainnet');
    expect(chains.name(1)).toBe('Ethereum');
    expect(chains.name(7777777)).toBe('Chain 7777777');
    expect(createChains({ 1: 'Mainnet' }).name(1)).toBe('Mainnet');
  });

  it('block explorer links for known chains, none for unknown ones', () => {
    const chains = createChains();
    expect(chains.link(1, 'address', '0xabc')).toBe('https://etherscan.io/address/0xabc');
    expect(chains.link(8453, 'tx', '0xdef')).toBe('https://basescan.org/tx/0xdef');
    expect(chains.link(42161, 'address', '0x1')).toBe('https://arbiscan.io/address/0x1');
    expect(chains.link(10, 'address', '0x1')).toBe('https://optimistic.etherscan.io/address/0x1');
    expect(chains.link(123456, 'address', '0x1')).toBeNull();
  });

  it('featured cards name chains by slug', () => {
    const chains = createChains({ 42161: 'Arbitrum One' });
    expect(chains.bySlug('arbitrum')).toMatchObject({ id: 42161, name: 'Arbitrum One' });
    expect(chains.bySlug('optimism').name).toBe('OP Mainnet');
    expect(chains.bySlug('zora')).toMatchObject({ id: 0, name: 'zora', explorer: null });
  });
});

describe('families', () => {
  it('display names, and the raw id for a family the table lacks', () => {
    expect(familyName('aera_v3')).toBe('Aera v3');
    expect(familyName('morpho_v1')).toBe('Morpho Vaults v1');
    expect(familyName('morpho_v2')).toBe('Morpho Vaults v2');
    expect(familyName('symbiotic')).toBe('Symbiotic');
    expect(familyName('erc4626')).toBe('ERC-4626');
    expect(familyName('euler_v2')).toBe('euler_v2');
    expect(familyName('toString')).toBe('toString');
  });
});

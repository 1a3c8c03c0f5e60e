import { describe, expect, it } from 'vitest';
import { definitionRows } from './definition.js';

describe('definitionRows', () => {
  it('a Morpho definition: the fee in %, the timelock in days, addresses named when known', () => {
    const rows = definitionRows(
      {
        vault_id: '1:0xdd0f28e19c1780eb6396170735d45153d261490d',
        chain_id: 1,
        address: '0xdd0f28e19c1780eb6396170735d45153d261490d',
        vault_type: 'morpho_v1',
        name: 'Gauntlet USDC Prime',
        symbol: 'gtUSDCp',
        owner: '0x38fe54d007277538b6aeb7ca583597d4660abae8',
        numeraire_token: { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6, symbol: 'USDC' },
        curator: null,
        fee_wad: '100000000000000000',
        fee_recipient: '0x305B6EB4551075D0775D938BDEB9AEA84B791304',
        timelock_seconds: 604_800,
      },
      new Map([['0xdd0f28e19c1780eb6396170735d45153d261490d', 'Gauntlet USDC Prime']]),
    );
    expect(rows.map((r) => [r.label, r.value.kind === 'text' ? r.value.text : `${r.value.address} ${r.value.name}`])).toEqual([
      ['Address', '0xdd0f28e19c1780eb6396170735d45153d261490d Gauntlet USDC Prime'],
      ['Owner', '0x38fe54d007277538b6aeb7ca583597d4660abae8 null'],
      ['Deposit token', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48 USDC (6 decimals)'],
      ['Curator', 'not set'],
      ['Performance fee', '10 %'],
      ['Fee recipient', '0x305b6eb4551075d0775d938bdeb9aea84b791304 null'],
      ['Timelock', '7 days'],
    ]);
  });

  it('an Aera definition: nested fees flatten, bps in %; a field nobody labelled still reads', () => {
    const rows = definitionRows({
      fees: { tvl_fee_bps: 50, performance_fee_bps: 1000 },
      hooks: null,
      cooldown_seconds: 3600,
      is_paused: false,
      max_deposit: '5',
    });
    expect(rows.map((r) => [r.key, r.label, r.value.kind === 'text' ? r.value.text : r.value.address])).toEqual([
      ['fees.tvl_fee_bps', 'TVL fee (a year)', '0.5 %'],
      ['fees.performance_fee_bps', 'Performance fee', '10 %'],
      ['hooks', 'Hooks', 'not set'],
      ['cooldown_seconds', 'Cooldown', '1 hour'],
      ['is_paused', 'Is paused', 'no'],
      ['max_deposit', 'Max deposit', '5'],
    ]);
  });
});

// Topic names of the live feed (DESIGN §11.7): `vaults`, `tvl`, `health`, `vault:{vault_id}`
// and `wallet:{address}`, each normalized the way the REST routes normalize their parameters
// (so `vault:eip155:1:0xAB…` and `vault:1:0xab…` are one topic).
import { VaultdError } from '../../common/errors.js';
import { clip, parseVaultId, parseWallet } from '../params.js';

export type Topic =
  | { kind: 'vaults' | 'tvl' | 'health'; name: string }
  | { kind: 'vault'; name: string; vaultId: string }
  | { kind: 'wallet'; name: string; wallet: string };

export const FIXED_TOPICS = ['vaults', 'tvl', 'health'] as const;

/** The topic `text` names, normalized; a 422 INVALID_PARAMETER naming `topics` otherwise. */
export function parseTopic(text: unknown): Topic {
  if (typeof text !== 'string') throw topicError(`${JSON.stringify(text)?.slice(0, 80)} is not a topic name`);
  if (text === 'vaults' || text === 'tvl' || text === 'health') return { kind: text, name: text };
  const colon = text.indexOf(':');
  const head = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  if (head === 'vault') {
    const vaultId = tryParse(() => parseVaultId(rest));
    if (vaultId === null)
      throw topicError(`"${clip(text)}": the vault id must be {chainId}:{address}, e.g. vault:1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458`);
    return { kind: 'vault', name: `vault:${vaultId}`, vaultId };
  }
  if (head === 'wallet') {
    const wallet = tryParse(() => parseWallet(rest));
    if (wallet === null) throw topicError(`"${clip(text)}": the address must be a 0x-prefixed 20-byte hex address`);
    return { kind: 'wallet', name: `wallet:${wallet}`, wallet };
  }
  throw topicError(`"${clip(text)}" is not a topic; use vaults, tvl, health, vault:{vault_id} or wallet:{address}`);
}

function topicError(message: string): VaultdError {
  return new VaultdError('INVALID_PARAMETER', `invalid topic ${message}`, { details: { parameter: 'topics' } });
}

function tryParse(parse: () => string): string | null {
  try {
    return parse();
  } catch {
    return null;
  }
}

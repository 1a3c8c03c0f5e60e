// describeError: messages safe to show anyone. File paths become <path>; a URL keeps its origin
// and hides its path and query, where RPC and API providers put keys (it used to eat a slash:
// `https:/<path>`, which named no host at all).
import { describe, expect, it } from 'vitest';
import { describeError, VaultdError } from './errors.js';

describe('describeError', () => {
  it('a URL keeps scheme, host and port; its path, query and credentials are hidden', () => {
    const cases: [string, string][] = [
      ['URL: https://eth-mainnet.g.alchemy.com/v2/KEY123', 'URL: https://eth-mainnet.g.alchemy.com/<path>'],
      ['GET https://api.example.org/tvl?apikey=KEY123 failed', 'GET https://api.example.org/<path> failed'],
      ['fetch http://user:pw@10.0.0.5:8545 failed', 'fetch http://10.0.0.5:8545 failed'],
      ['http://127.0.0.1:8545/ refused', 'http://127.0.0.1:8545 refused'],
      ['wss://node.example/ws/KEY closed', 'wss://node.example/<path> closed'],
    ];
    for (const [message, shown] of cases) expect(describeError(new Error(message))).toBe(shown);
  });

  it('a file path is <path>, a VaultdError is shown as it is, anything else as text', () => {
    expect(describeError(new Error('Could not write file "/srv/vaultd/data/vaultd.duckdb": No space left on device'))).toBe(
      'Could not write file "<path>": No space left on device',
    );
    expect(describeError(new VaultdError('USAGE', 'no database at "/tmp/x.duckdb"'))).toBe('no database at "/tmp/x.duckdb"');
    expect(describeError('plain')).toBe('plain');
  });
});

// The committed artifacts must be what the committed Solidity compiles to: a contract edited
// without rerunning compile.js would otherwise deploy stale bytecode silently.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, DEVNET_DIR } from './artifacts.js';
import { compileContracts, renderAbisModule } from './compile.js';

describe('devnet contracts', () => {
  it('compile offline, without warnings, to exactly the committed artifacts and abis.ts', () => {
    const { artifacts, warnings } = compileContracts();
    expect(warnings).toEqual([]);
    for (const a of artifacts) {
      const committed = readFileSync(join(ARTIFACTS_DIR, `${a.contractName}.json`), 'utf8');
      expect(`${JSON.stringify(a, null, 2)}\n`, `${a.contractName}.json is stale: run node dist/devnet/compile.js`).toBe(committed);
      // no CBOR metadata tail (a0 64 'ipfs' / a1 64 'solc' …): the bytecode depends on the code alone
      expect(a.bytecode).not.toMatch(/a2646970667358|a164736f6c63/);
    }
    expect(renderAbisModule(artifacts)).toBe(readFileSync(join(DEVNET_DIR, 'abis.ts'), 'utf8'));
  });
});

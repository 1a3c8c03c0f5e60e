// `vaultd snapshot verify DIR`: the whole-file check of a published snapshot directory
// (engine/publish/verifySnapshotDir.ts). Exit 0 with a summary; 1 naming the bad file; 2 when
// DIR holds no snapshot.
import { resolve } from 'node:path';
import { closest } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { CorruptSnapshotError, readManifest } from '../../engine/publish/snapshotFiles.js';
import { verifySnapshotDir } from '../../engine/publish/verifySnapshotDir.js';
import { parseFlags } from '../args.js';
import { SNAPSHOT } from '../commandSpecs.js';

export async function snapshotCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'verify') {
    const near = action === undefined ? undefined : closest(action, ['verify']);
    throw new VaultdError('USAGE', `snapshot: expected "verify DIR", got ${action ? `"${action}"` : 'nothing'}${near ? `; did you mean "${near}"?` : ''}`);
  }
  const { positionals } = parseFlags(SNAPSHOT, rest, { positionals: 1, as: 'snapshot verify' });
  if (positionals.length < 1) throw new VaultdError('USAGE', 'snapshot verify: missing DIR, the snapshot directory to check');
  const dir = resolve(positionals[0]!);
  const t0 = performance.now();
  const manifest = await readManifest(dir).catch((err: unknown) => {
    throw new VaultdError('SNAPSHOT_CORRUPT', `snapshot verify: ${(err as Error).message}`);
  });
  if (!manifest)
    throw new VaultdError(
      'USAGE',
      `snapshot verify: "${positionals[0]}" holds no snapshot (no manifest.json); name a directory \`vaultd publish --out\` wrote`,
    );
  try {
    const v = await verifySnapshotDir(dir);
    process.stdout.write(
      `snapshot ${dir} ok: generation ${v.generation} (refreshed_at ${v.refreshed_at}), ${v.files} files, ${v.bytes} bytes checked ` +
        `(size, SHA-256, CRC-32) in ${Math.round(performance.now() - t0)} ms\n`,
    );
  } catch (err) {
    if (err instanceof CorruptSnapshotError) throw new VaultdError('SNAPSHOT_CORRUPT', `snapshot verify: ${err.message}`);
    throw err;
  }
  return 0;
}

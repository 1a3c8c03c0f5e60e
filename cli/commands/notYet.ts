// Commands of the DESIGN §2 contract whose engine has not landed yet: they say so plainly.
import { VaultdError } from '../../common/errors.js';

export function notYet(command: string, part: string) {
  return async (): Promise<number> => {
    throw new VaultdError('SOURCE_FAILED', `\`vaultd ${command}\` is not available in this build yet: it arrives with ${part}`);
  };
}

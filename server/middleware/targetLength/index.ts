// target length: 414 URI_TOO_LONG past MAX_TARGET (path and query).
import { VaultdError } from '../../../common/errors.js';
import { type Exchange, MAX_TARGET, type Step } from '../../exchange.js';

export function createTargetLengthStep(chargeJunk: (x: Exchange) => void): Step {
  return (x) => {
    if (x.req.path.length + x.req.query.length <= MAX_TARGET) return;
    if (!x.isV1) chargeJunk(x);
    throw new VaultdError('URI_TOO_LONG', `the request target is ${x.req.path.length + x.req.query.length} bytes; the limit is ${MAX_TARGET}`);
  };
}

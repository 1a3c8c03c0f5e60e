// Scalar and shared building blocks of the response schemas (seed "Shared types", DESIGN §4.7):
// decimal strings without exponents, RFC 3339 UTC whole-second date-times, lowercase addresses.
import * as v from 'valibot';
import { REQUEST_ID_PATTERN } from '../requestId.js';

/**
 * A decimal string in human units, in the canonical form of DESIGN §4.7: never exponent notation,
 * "0" for zero, no leading zeros, no trailing fractional zeros, "-" only on non-zero values.
 * (Every string it accepts also matches the looser `^-?\d+(\.\d+)?$`.)
 */
export const DECIMAL_PATTERN = /^(?:0|-?(?:0\.\d*[1-9]|[1-9]\d*(?:\.\d*[1-9])?))$/;
export const UNSIGNED_DECIMAL_PATTERN = /^(?:0|0\.\d*[1-9]|[1-9]\d*(?:\.\d*[1-9])?)$/;
export const UNSIGNED_INTEGER_STRING_PATTERN = /^(?:0|[1-9]\d*)$/;
/** RFC 3339 UTC with `Z`, whole seconds (DESIGN §4.7). */
export const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
/** The API emits every address lowercase, as in a vault id (seed Conventions 1). */
export const ADDRESS_PATTERN = /^0x[0-9a-f]{40}$/;
export const VAULT_ID_PATTERN = /^[1-9]\d*:0x[0-9a-f]{40}$/;
export const HASH32_PATTERN = /^0x[0-9a-f]{64}$/;

export const Decimal = v.pipe(v.string(), v.regex(DECIMAL_PATTERN, 'must be a plain decimal string'));
export const UnsignedDecimal = v.pipe(v.string(), v.regex(UNSIGNED_DECIMAL_PATTERN, 'must be a non-negative plain decimal string'));
export const DateTime = v.pipe(v.string(), v.regex(DATE_TIME_PATTERN, 'must be RFC 3339 UTC whole seconds'), v.isoTimestamp());
export const Address = v.pipe(v.string(), v.regex(ADDRESS_PATTERN, 'must be a lowercase 0x address'));
export const VaultId = v.pipe(v.string(), v.regex(VAULT_ID_PATTERN, 'must be {chainId}:{lowercase address}'));
export const Hash32 = v.pipe(v.string(), v.regex(HASH32_PATTERN, 'must be a lowercase 32-byte hex hash'));
export const RequestId = v.pipe(v.string(), v.regex(REQUEST_ID_PATTERN, 'must be a request id'));

/** integer int64 of the seed (chain ids, counts, Unix seconds). */
export const Int64 = v.pipe(v.number(), v.integer(), v.metadata({ format: 'int64' }));
export const NonNegativeInt64 = v.pipe(v.number(), v.integer(), v.minValue(0), v.metadata({ format: 'int64' }));
export const ChainId = v.pipe(v.number(), v.integer(), v.minValue(1), v.metadata({ format: 'int64' }));
export const Int32 = v.pipe(v.number(), v.integer(), v.metadata({ format: 'int32' }));
/** number (double) of the seed: APY fractions, ROI percents, prices. */
export const Double = v.pipe(v.number(), v.metadata({ format: 'double' }));

/** `native` in the numeraire, `usd` null when unpriced (seed Conventions 3). */
export const AmountPair = v.strictObject({ native: Decimal, usd: v.nullable(Decimal) });
/** A USD-only aggregate; null when none of its parts is priced (DESIGN §4.5). */
export const UsdAmount = v.strictObject({ usd: v.nullable(Decimal) });

export const TokenRef = v.strictObject({
  address: Address,
  decimals: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.metadata({ format: 'int32' }))),
  symbol: v.nullable(v.string()),
});

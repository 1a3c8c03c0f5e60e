// The OpenAPI 3.1 document of every route (DESIGN §5.2 `/openapi.json`), generated from the
// same valibot schemas the server parses queries with (params.ts) and the tests validate bodies with.
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { OPERATIONS, type OperationSpec, type PathParam } from './openapiOperations.js';
import { QUERY_SCHEMAS, type QueryRoute } from './params.js';
import { REQUEST_ID_PATTERN } from './requestId.js';
import { COMPONENTS } from './schemas/responses.js';
import { STREAM_PATHS, STREAM_SCHEMAS } from './openapiStream.js';

export const OPENAPI_VERSION = '1.0.0';

type Json = Record<string, unknown>;
type AnySchema = v.GenericSchema & { pipe?: readonly PipeItem[]; wrapped?: AnySchema; options?: readonly unknown[]; default?: unknown };
type PipeItem = { kind: string; type: string; requirement?: unknown; operation?: unknown; message?: unknown };

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  // a `check` cannot be expressed in JSON Schema: its message becomes the description
  overrideAction: ({ valibotAction, jsonSchema }) => {
    const message = (valibotAction as { message?: unknown }).message;
    return valibotAction.type === 'check' && typeof message === 'string' ? { ...jsonSchema, description: sentence(message) } : undefined;
  },
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
};

function sentence(message: string): string {
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
}

// ---- query parameters, generated from QUERY_SCHEMAS ----

/**
 * The wire type of a query parameter is a string; params.ts parses some into numbers or booleans
 * (a string pipe, then `transform`). Document those as the integer or boolean they stand for, with
 * the bounds that follow the transform, so generated clients get typed parameters.
 */
function liftWireType(entry: AnySchema, wire: JsonSchema): JsonSchema {
  const inner = entry.type === 'optional' ? entry.wrapped! : entry;
  const pipe = inner.pipe ?? [];
  const t = pipe.findIndex((a) => a.kind === 'transformation' && a.type === 'transform');
  if (t < 0) return wire;
  const head = pipe[0] as AnySchema | undefined;
  const fallback = entry.type === 'optional' ? entry.default : undefined;
  if (head?.type === 'picklist' && head.options!.every((o) => ['true', 'false', '1', '0'].includes(o as string))) {
    return {
      type: 'boolean',
      description: '`true` or `false` (`1` and `0` are accepted too).',
      ...(fallback === undefined ? {} : { default: fallback === 'true' || fallback === '1' }),
    };
  }
  if (pipe[t]!.operation === Number) {
    const out: JsonSchema = { type: 'integer' };
    for (const a of pipe.slice(t + 1)) {
      if (a.type === 'min_value') out.minimum = a.requirement as number;
      if (a.type === 'max_value') out.maximum = a.requirement as number;
    }
    if (fallback !== undefined) out.default = Number(fallback);
    return out;
  }
  return wire;
}

/** What a parameter means where its schema cannot say it (one meaning on every route that takes it). */
const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  as_of:
    'Answers as of that instant (DESIGN §11.6): the body the server would have published with the data known then (snapshots, events and prices at or before it; ' +
    '"now" in values, PnL and APY is `as_of`), echoed in `meta.as_of`. An ISO 8601 date (00:00:00 UTC) or date-time (no zone = UTC), or Unix seconds. ' +
    "A vault appears once its first snapshot is at or before it; registry settings (hidden, disabled, featured, strategy, names) are today's. " +
    'After the newest data: 422.',
};

export function queryParameters(route: QueryRoute, deprecated: readonly string[] = []): Json[] {
  const entries = QUERY_SCHEMAS[route].entries as Record<string, AnySchema>;
  return Object.entries(entries).map(([name, entry]) => {
    const { $schema: _, ...wire } = toJsonSchema(entry, { ...CONVERSION, typeMode: 'input' });
    const description = PARAMETER_DESCRIPTIONS[name];
    return {
      name,
      in: 'query',
      ...(description ? { description } : {}),
      required: entry.type !== 'optional',
      ...(deprecated.includes(name) ? { deprecated: true } : {}),
      schema: liftWireType(entry, wire),
    };
  });
}

// ---- path parameters ----
// params.ts checks these with functions (parseVaultId, parseWallet), not schemas: the patterns
// restate those rules, and openapi.test.ts checks both agree on the same inputs.
const VAULT_ID_PARAM_PATTERN = /^(?:eip155:)?(?!0+:)\d{1,12}:0x[0-9a-fA-F]{40}$/;
const ADDRESS_PARAM_PATTERN = /^0x[0-9a-fA-F]{40}$/;

const PATH_PARAMETERS: Record<PathParam, Json> = {
  vault_id: {
    name: 'vault_id',
    in: 'path',
    required: true,
    description:
      '`{chainId}:{address}`; the address is matched case-insensitively and answered lowercase. `eip155:{chainId}:{address}` ' +
      '(CAIP-10) names the same vault; answers always carry the `{chainId}:{address}` form.',
    schema: { type: 'string', pattern: VAULT_ID_PARAM_PATTERN.source, examples: ['1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458'] },
  },
  wallet_address: {
    name: 'wallet_address',
    in: 'path',
    required: true,
    description: 'An EVM wallet address, matched case-insensitively.',
    schema: { type: 'string', pattern: ADDRESS_PARAM_PATTERN.source },
  },
  slug: {
    name: 'slug',
    in: 'path',
    required: true,
    description: 'The exact admin-curated public slug.',
    schema: { type: 'string', minLength: 1 },
  },
};
const PATH_PARAMETER_COMPONENT: Record<PathParam, string> = { vault_id: 'VaultId', wallet_address: 'WalletAddress', slug: 'Slug' };

// ---- headers and responses (DESIGN §5.1, §5.5, §5.6) ----

const int = { type: 'integer', minimum: 0 };
const HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: 'The request id, also `meta.request_id`.', schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source } },
  ETag: { description: 'Strong validator of the body without its request id; send it back in `If-None-Match`.', schema: { type: 'string' } },
  'Cache-Control': { description: 'Seconds to the next scheduled publish.', schema: { type: 'string' } },
  'RateLimit-Limit': { description: "Requests per window of the caller's tier.", schema: int },
  'RateLimit-Remaining': { description: 'Requests left in the window.', schema: int },
  'RateLimit-Reset': { description: 'Seconds until the budget is full again.', schema: int },
  'X-RateLimit-Limit': { description: 'Twin of RateLimit-Limit.', schema: int },
  'X-RateLimit-Remaining': { description: 'Twin of RateLimit-Remaining.', schema: int },
  'X-RateLimit-Reset': { description: 'Twin of RateLimit-Reset.', schema: int },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: int },
  Deprecation: { description: 'Sent when a deprecated parameter was used.', schema: { type: 'string', const: 'true' } },
  Link: { description: 'The successor of the deprecated parameter.', schema: { type: 'string' } },
};
const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

const ERROR_RESPONSES: Record<number, { schema: string; description: string }> = {
  401: { schema: 'UnauthorizedError', description: 'UNAUTHORIZED: the credential is unknown or revoked, or missing while anonymous access is off.' },
  404: { schema: 'NotFoundError', description: 'NOT_FOUND: unknown vault, slug, position or token.' },
  409: {
    schema: 'ConflictError',
    description:
      'CURSOR_STALE: a chain reorganization removed rows inside the data this walk is pinned to (a cursor pins the data time of its first page); start the walk again without `next`.',
  },
  414: { schema: 'UriTooLongError', description: 'URI_TOO_LONG: the request target (path and query) is over 8192 bytes.' },
  422: {
    schema: 'UnprocessableError',
    description:
      'INVALID_PARAMETER (details name the parameter) or INVALID_CURSOR. `as_of` after the newest data is INVALID_PARAMETER, and so is `as_of` with `include=returns` or `cost_basis_method=fifo` (the audit detail is answered as of the latest data only).',
  },
  429: { schema: 'RateLimitedError', description: "RATE_LIMITED: over the caller's budget." },
  500: { schema: 'InternalError', description: 'INTERNAL: logged with the request id; never a stack or a path.' },
  503: { schema: 'NotReadyError', description: 'NOT_READY: no snapshot published yet.' },
};

function headers(names: readonly string[]): Json {
  return Object.fromEntries(names.map((n) => [n, headerRef(n)]));
}

function responses(op: OperationSpec): Json {
  const isV1 = op.path.startsWith('/v1/');
  const limited = isV1 ? RATE_LIMIT : [];
  const ok = isV1 ? ['X-Request-Id', 'ETag', 'Cache-Control', ...limited, ...(op.deprecatedQuery ? ['Deprecation', 'Link'] : [])] : [];
  const content = typeof op.body === 'string' ? { 'application/json': { schema: schemaRef(op.body) } } : { [op.body.mediaType]: { schema: op.body.schema } };
  const out: Json = { 200: { description: op.summary, headers: headers(ok), content } };
  if (isV1) out[304] = { description: 'Not modified (`If-None-Match` matched the ETag); no body.', headers: headers(['X-Request-Id', 'ETag', ...limited]) };
  const statuses = isV1 ? [401, ...op.errors, 414, 429, 503, 500] : [414, 500];
  for (const status of statuses.sort((a, b) => a - b)) {
    const e = ERROR_RESPONSES[status]!;
    const names = ['X-Request-Id', ...(status === 401 ? [] : limited), ...(status === 429 ? ['Retry-After'] : [])];
    out[status] = { description: e.description, headers: headers(names), content: { 'application/json': { schema: schemaRef(e.schema) } } };
  }
  if (op.keyedByConfig) {
    out[401] = {
      description: op.keyedByConfig,
      headers: headers(['X-Request-Id']),
      content: { 'application/json': { schema: schemaRef('UnauthorizedError') } },
    };
  }
  if (op.unavailable) {
    out[503] = { description: op.unavailable.description, headers: {}, content: { 'application/json': { schema: schemaRef(op.unavailable.body) } } };
  }
  return out;
}

function operation(op: OperationSpec): Json {
  const parameters = [
    ...op.pathParams.map((p) => ({ $ref: `#/components/parameters/${PATH_PARAMETER_COMPONENT[p]}` })),
    ...(op.query ? queryParameters(op.query, op.deprecatedQuery) : []),
  ];
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    // anonymous access is allowed (rate-limited): `{}` makes both schemes optional
    ...(op.security ? { security: [{}, { bearer: [] }, { apiKey: [] }] } : {}),
    responses: responses(op),
  };
}

// ---- the document ----

function build(): Json {
  const paths: Json = {};
  for (const op of Object.values(OPERATIONS)) paths[op.path] = { get: operation(op) };
  Object.assign(paths, STREAM_PATHS);
  const schemas = { ...toJsonSchemaDefs(COMPONENTS, { ...CONVERSION, errorMode: 'throw' }), ...STREAM_SCHEMAS };
  return {
    openapi: '3.1.0',
    info: {
      title: 'vaultd',
      version: OPENAPI_VERSION,
      summary: "Read-only API for curated yield vaults on EVM chains and wallets' positions in them.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    tags: ['vaults', 'users', 'aggregates', 'prices', 'live', 'health', 'meta'].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      parameters: Object.fromEntries(Object.entries(PATH_PARAMETERS).map(([k, p]) => [PATH_PARAMETER_COMPONENT[k as PathParam], p])),
      headers: HEADERS,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key from `vaultd keys create`.' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The same API key, in a header.' },
      },
    },
  };
}

function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const value of Object.values(x)) deepFreeze(value);
  }
  return x;
}

// Built once, on first use: the document is a pure function of the schemas, and every caller
// (the /openapi.json page, the response validator, tests) reads the same frozen object.
let cached: Json | undefined;

/** The OpenAPI 3.1.0 document of every route (frozen; build once, share). */
export function buildOpenApi(): Json {
  return (cached ??= deepFreeze(build()));
}

// Test helper: validates a response body against the OpenAPI document's schema for that route and
// status (DESIGN §5.2: "the tests validate real responses against" /openapi.json), with ajv 2020.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { buildOpenApi } from '../openapi.js';
import { OPERATIONS, type OperationSpec } from '../openapiOperations.js';
import { matchRoute, type RouteName } from '../router.js';

// ajv-formats is CommonJS: under NodeNext TypeScript types its default import as the module
// object; at run time it is the plugin itself, which also carries `.default`.
const addFormats = addFormatsModule.default;

const DOCUMENT_ID = 'urn:vaultd:openapi';

export interface ResponseValidator {
  /**
   * Errors of `body` as the response of `operation` with `status` (empty = valid). `operation`
   * is an operationId (`getVault`), a route name (`vaults.get`), a path template
   * (`/v1/vaults/{vault_id}`) or a concrete request path (`/v1/vaults/1:0xabc…?limit=5`), each
   * optionally prefixed by `GET `. A 304 must have no body; an undocumented status is an error.
   */
  validate(operation: string, status: number, body: unknown): string[];
  /** The operation `operation` resolves to (throws when none does). */
  resolve(operation: string): OperationSpec;
  /**
   * Errors of `body` against one named schema of `components.schemas` (e.g. `ErrorResponse` for
   * answers no operation documents: 405, or 404 on an unknown route).
   */
  validateComponent(name: string, body: unknown): string[];
}

type Json = Record<string, unknown>;

export function createResponseValidator(): ResponseValidator {
  const doc = buildOpenApi() as Json & { paths: Record<string, { get: Json }> };
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  // The OpenAPI wrapper keys around components.schemas are not JSON Schema keywords.
  ajv.addKeyword({ keyword: 'components' });
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: (doc.components as Json).schemas } });
  const compiled = new Map<string, ValidateFunction>();

  const byName = new Map<string, OperationSpec>();
  for (const [name, op] of Object.entries(OPERATIONS)) {
    byName.set(name, op);
    byName.set(op.operationId, op);
    byName.set(op.path, op);
  }

  function resolve(operation: string): OperationSpec {
    const key = operation.replace(/^GET\s+/i, '');
    const direct = byName.get(key);
    if (direct) return direct;
    const m = matchRoute(key.split('?')[0]!);
    if (m) return OPERATIONS[m.name as RouteName];
    throw new Error(`no operation for "${operation}"`);
  }

  function schemaFor(ref: string): ValidateFunction {
    let fn = compiled.get(ref);
    if (!fn) {
      fn = ajv.getSchema(`${DOCUMENT_ID}${ref}`);
      if (!fn) throw new Error(`schema "${ref}" is not in the document`);
      compiled.set(ref, fn);
    }
    return fn;
  }

  function validate(operation: string, status: number, body: unknown): string[] {
    const op = resolve(operation);
    const responses = doc.paths[op.path]!.get.responses as Record<string, Json>;
    const response = responses[String(status)];
    if (!response) return [`status ${status} is not documented for ${op.operationId}`];
    const content = response.content as Record<string, { schema: Json }> | undefined;
    if (!content) return body === undefined || body === null || body === '' ? [] : [`status ${status} of ${op.operationId} has no body`];
    const [mediaType, media] = Object.entries(content)[0]!;
    if (mediaType !== 'application/json') return typeof body === 'string' ? [] : [`body of ${op.operationId} must be ${mediaType} text`];
    const fn = typeof media.schema.$ref === 'string' ? schemaFor(media.schema.$ref) : ajv.compile(media.schema);
    return errorsOf(fn, body);
  }

  function validateComponent(name: string, body: unknown): string[] {
    return errorsOf(schemaFor(`#/components/schemas/${name}`), body);
  }

  return { validate, resolve, validateComponent };
}

function errorsOf(fn: ValidateFunction, body: unknown): string[] {
  if (fn(body)) return [];
  return (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

// The live feed in the OpenAPI document (DESIGN §11.7): its two routes (not routes of the request
// pipeline: server/stream/ serves them) and the message schemas as components. OpenAPI cannot
// type WebSocket frames, so the ops and messages are components the descriptions point to.
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorBody = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });

const TOPICS = {
  name: 'topics',
  in: 'query',
  description: 'Comma-separated topics: `vaults`, `tvl`, `health`, `vault:{vault_id}`, `wallet:{address}` (at most `stream.max_topics_per_connection`).',
  schema: { type: 'string' },
};
const SINCE = {
  name: 'since',
  in: 'query',
  description:
    'Replay the messages after this generation while the server keeps them (the last `stream.replay_generations`, default 64), else one `{"op":"resync"}`. SSE also reads `Last-Event-ID`.',
  schema: { type: 'integer', minimum: 0 },
};

const COMMON_ERRORS = {
  '401': { description: 'An invalid or revoked API key, or (SSE) no key while `auth.anonymous` is false.', ...errorBody('UnauthorizedError') },
  '422': { description: 'An unknown topic or a bad `since`.', ...errorBody('UnprocessableError') },
  '429': { description: 'Too many open streams for this client IP (anonymous) or API key.', ...errorBody('RateLimitedError') },
  '501': { description: 'The server runs the `node` transport (`server.transport`): the live feed needs uWebSockets.js.' },
};

export const STREAM_PATHS = {
  '/v1/stream': {
    get: {
      operationId: 'openStream',
      summary: 'Live feed over WebSocket',
      description:
        'Upgrades to a WebSocket. Send `StreamClientOp` frames: `auth` (optional, first), `subscribe` (`topics`, optional `since`), `unsubscribe`. ' +
        'Receive a `StreamMessage` per change of a subscribed topic at each publish (its `data` is the REST shape of that thing), and `StreamServerOp` ' +
        'frames (`subscribed`, `resync`, `error`, …). Close codes: 1001 server stopping, 1008 unauthorized, 1013 more than 1 MiB behind (reconnect with `since`).',
      tags: ['live'],
      security: [{}, { bearer: [] }, { apiKey: [] }],
      responses: { '101': { description: 'Switching Protocols: the WebSocket is open.' }, ...COMMON_ERRORS },
    },
  },
  '/v1/stream/sse': {
    get: {
      operationId: 'openStreamSse',
      summary: 'Live feed as Server-Sent Events',
      description:
        'The same messages as `/v1/stream`, one event each: `id:` is the generation (so `Last-Event-ID` resumes), `data:` a `StreamMessage`; ' +
        '`event: resync` carries `{"op":"resync"}` (refetch over REST), `event: subscribed` acknowledges. A comment line keeps idle streams open.',
      tags: ['live'],
      parameters: [{ ...TOPICS, required: true }, SINCE],
      security: [{}, { bearer: [] }, { apiKey: [] }],
      responses: {
        '200': { description: 'An open event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...COMMON_ERRORS,
      },
    },
  },
} as const;

const message = (kind: string, data: unknown, topic: string) => ({
  type: 'object',
  additionalProperties: false,
  required: ['topic', 'kind', 'generation', 'refreshed_at', 'data'],
  properties: {
    topic: { type: 'string', description: topic },
    kind: { const: kind },
    generation: { type: 'integer', minimum: 0, description: 'The publish this change belongs to.' },
    refreshed_at: { type: 'string', format: 'date-time' },
    data,
  },
});

export const STREAM_SCHEMAS = {
  StreamMessage: {
    description: 'One change of one topic, serialized once per publish; `data` has exactly the REST shape.',
    oneOf: [
      message('vault.metrics', ref('VaultDetail'), '`vaults` or `vault:{vault_id}`; data: the /v1/vaults item'),
      message('vault.point', ref('VaultTimeseriesPoint'), '`vault:{vault_id}`; data: the newest hourly point'),
      message('tvl', ref('Tvl'), '`tvl`; data: /v1/tvl data'),
      message('wallet.position', ref('Position'), '`wallet:{address}`; data: a /v1/users/{w}/positions item'),
      message('wallet.activity', ref('ActivityRow'), '`wallet:{address}`; data: a new /v1/users/{w}/activity row'),
      message('wallet.request', ref('RequestItem'), '`wallet:{address}`; data: a /v1/users/{w}/requests item in its new state (DESIGN §11.8)'),
      message('health', ref('Health'), '`health`; data: the /health body'),
    ],
  },
  StreamClientOp: {
    description: 'A client frame on /v1/stream.',
    oneOf: [
      { type: 'object', required: ['op', 'key'], properties: { op: { const: 'auth' }, key: { type: 'string' } } },
      {
        type: 'object',
        required: ['op', 'topics'],
        properties: { op: { const: 'subscribe' }, topics: { type: 'array', items: { type: 'string' }, minItems: 1 }, since: { type: 'integer', minimum: 0 } },
      },
      { type: 'object', required: ['op', 'topics'], properties: { op: { const: 'unsubscribe' }, topics: { type: 'array', items: { type: 'string' } } } },
    ],
  },
  StreamServerOp: {
    description: 'A server frame that is not a message.',
    oneOf: [
      { type: 'object', required: ['op'], additionalProperties: false, properties: { op: { const: 'resync' } } },
      {
        type: 'object',
        required: ['op', 'topics', 'generation'],
        properties: { op: { const: 'subscribed' }, topics: { type: 'array', items: { type: 'string' } }, generation: { type: ['integer', 'null'] } },
      },
      { type: 'object', required: ['op', 'topics'], properties: { op: { const: 'unsubscribed' }, topics: { type: 'array', items: { type: 'string' } } } },
      { type: 'object', required: ['op', 'key_id', 'tier'], properties: { op: { const: 'authed' }, key_id: { type: 'string' }, tier: { type: 'string' } } },
      { type: 'object', required: ['op', 'code', 'message'], properties: { op: { const: 'error' }, code: { type: 'string' }, message: { type: 'string' } } },
    ],
  },
} as const;

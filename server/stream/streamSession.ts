// One stream's state and its client operations (DESIGN §11.7), free of any transport: `auth`
// (an API key, first), `subscribe` (topics, optional `since`), `unsubscribe`. The WebSocket
// route feeds it each client message; the SSE route one subscribe from its query. It answers
// with what to send, which transport topics to join or leave, and when to close.
import { VaultdError } from '../../common/errors.js';
import type { AuthResult, AuthTable } from '../auth.js';
import { type ConnectionLimits, ipBucket, keyBucket } from './connectionLimits.js';
import { MAX_TRACKED, type StreamHub } from './streamHub.js';
import { parseTopic, type Topic } from './topics.js';

export interface SessionDeps {
  hub: StreamHub;
  limits: ConnectionLimits;
  auth: () => AuthTable;
  /** config auth.anonymous: anonymous streams may subscribe */
  anonymous: boolean;
  maxTopics: number;
}

export interface Outcome {
  send: Buffer[];
  join: string[];
  leave: string[];
  /** close the stream with this code and reason after sending */
  close?: [number, string];
}

export interface StreamSession {
  readonly who: AuthResult;
  readonly topics: ReadonlySet<string>;
  /** The connection's slot, taken before the stream opens; false when the IP's or key's limit is reached. */
  admit(): boolean;
  handle(op: unknown): Outcome;
  /** The stream ended: its topics and its slot are given back. */
  end(): void;
}

export const RESYNC = Buffer.from('{"op":"resync"}');
/** WebSocket close codes (RFC 6455 §7.4.1; 1013 "try again later" as IANA registered it). */
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY = 1008;
export const CLOSE_TRY_LATER = 1013;

const opError = (err: VaultdError) => Buffer.from(JSON.stringify({ op: 'error', code: err.code, message: err.message }));

export function createStreamSession(deps: SessionDeps, ip: string, who: AuthResult): StreamSession {
  let current = who;
  let bucket: string | null = null;
  const topics = new Map<string, Topic>();

  const bucketOf = (w: AuthResult) => (w.kind === 'key' ? keyBucket(w.id) : ipBucket(ip));
  const refuse = (err: VaultdError, close?: [number, string]): Outcome => ({ send: [opError(err)], join: [], leave: [], ...(close ? { close } : {}) });

  function subscribe(names: unknown, since: unknown): Outcome {
    if (current.kind !== 'key' && !deps.anonymous) {
      return refuse(new VaultdError('UNAUTHORIZED', 'this server needs an API key: send {"op":"auth","key":"…"} first'), [CLOSE_POLICY, 'unauthorized']);
    }
    if (!Array.isArray(names) || names.length === 0) return refuse(new VaultdError('INVALID_PARAMETER', '"topics" must be a non-empty array of topic names'));
    if (since !== undefined && (typeof since !== 'number' || !Number.isInteger(since) || since < 0)) {
      return refuse(new VaultdError('INVALID_PARAMETER', `"since" must be a generation (a non-negative integer), not ${JSON.stringify(since)?.slice(0, 40)}`));
    }
    let parsed: Topic[];
    try {
      parsed = names.map(parseTopic);
    } catch (err) {
      return refuse(err as VaultdError);
    }
    const model = deps.hub.latest();
    for (const t of parsed) {
      // as on REST: an unknown or disabled vault is a 404 (a hidden one is served by id)
      if (t.kind === 'vault' && model && !model.hasVault(t.vaultId)) return refuse(new VaultdError('NOT_FOUND', `no vault "${t.vaultId}"`));
    }
    const fresh = [...new Map(parsed.filter((t) => !topics.has(t.name)).map((t) => [t.name, t])).values()];
    if (topics.size + fresh.length > deps.maxTopics) {
      return refuse(
        new VaultdError(
          'RATE_LIMITED',
          `at most ${deps.maxTopics} topics per stream (${topics.size} subscribed, ${fresh.length} more asked); unsubscribe some or open another stream`,
        ),
      );
    }
    // every topic is computed at each publish: their number on the server is bounded
    if (deps.hub.tracked() + fresh.length > MAX_TRACKED) {
      return refuse(new VaultdError('NOT_READY', 'this server follows as many topics as it can; retry later or subscribe to vaults'));
    }
    const send: Buffer[] = [];
    // replays first (the same turn as the join: no publish can fall between)
    if (since !== undefined) {
      const replays = parsed.map((t) => deps.hub.replay(t.name, since as number));
      if (replays.some((r) => r.kind === 'resync')) send.push(RESYNC);
      else {
        const messages = replays.flatMap((r) => (r.kind === 'messages' ? r.messages : []));
        // in generation order across topics (each topic's are in order already)
        messages.sort((a, b) => generationOf(a) - generationOf(b));
        send.push(...messages);
      }
    }
    for (const t of fresh) {
      topics.set(t.name, t);
      deps.hub.track(t);
    }
    const all = parsed.map((t) => t.name);
    send.push(Buffer.from(JSON.stringify({ op: 'subscribed', topics: all, generation: model?.generation ?? null })));
    return { send, join: fresh.map((t) => t.name), leave: [] };
  }

  function unsubscribe(names: unknown): Outcome {
    if (!Array.isArray(names)) return refuse(new VaultdError('INVALID_PARAMETER', '"topics" must be an array of topic names'));
    const leave: string[] = [];
    for (const n of names) {
      let t: Topic;
      try {
        t = parseTopic(n);
      } catch (err) {
        return refuse(err as VaultdError);
      }
      if (topics.delete(t.name)) {
        deps.hub.untrack(t);
        leave.push(t.name);
      }
    }
    return { send: [Buffer.from(JSON.stringify({ op: 'unsubscribed', topics: leave }))], join: [], leave };
  }

  function auth(key: unknown): Outcome {
    if (typeof key !== 'string' || key === '') return refuse(new VaultdError('INVALID_PARAMETER', '"key" must be an API key'), [CLOSE_POLICY, 'unauthorized']);
    if (topics.size > 0 || current.kind === 'key') {
      return refuse(new VaultdError('INVALID_PARAMETER', '"auth" comes first, before any subscribe, and once'), [CLOSE_POLICY, 'auth must come first']);
    }
    const result = deps.auth().authenticate({ apiKey: key });
    if (result.kind !== 'key') return refuse(new VaultdError('UNAUTHORIZED', 'invalid or revoked API key'), [CLOSE_POLICY, 'unauthorized']);
    // the key's slot instead of the IP's
    const next = keyBucket(result.id);
    if (!deps.limits.take(next)) {
      return refuse(new VaultdError('RATE_LIMITED', `at most ${deps.limits.limitOf(next)} open streams per API key`), [CLOSE_TRY_LATER, 'too many streams']);
    }
    if (bucket) deps.limits.release(bucket);
    bucket = next;
    current = result;
    return { send: [Buffer.from(JSON.stringify({ op: 'authed', key_id: result.id, tier: result.tier }))], join: [], leave: [] };
  }

  return {
    get who() {
      return current;
    },
    get topics() {
      return new Set(topics.keys());
    },
    admit() {
      const b = bucketOf(current);
      if (!deps.limits.take(b)) return false;
      bucket = b;
      return true;
    },
    handle(op) {
      if (typeof op !== 'object' || op === null || Array.isArray(op))
        return refuse(new VaultdError('INVALID_PARAMETER', 'a message must be a JSON object with "op"'));
      const o = op as Record<string, unknown>;
      switch (o.op) {
        case 'auth':
          return auth(o.key);
        case 'subscribe':
          return subscribe(o.topics, o.since);
        case 'unsubscribe':
          return unsubscribe(o.topics);
        default:
          return refuse(new VaultdError('INVALID_PARAMETER', `unknown op ${JSON.stringify(o.op)?.slice(0, 40)}; use auth, subscribe or unsubscribe`));
      }
    },
    end() {
      for (const t of topics.values()) deps.hub.untrack(t);
      topics.clear();
      if (bucket) deps.limits.release(bucket);
      bucket = null;
    },
  };
}

const GENERATION = Buffer.from('"generation":');
/** The generation of a serialized message (its bytes are the hub's own: the key is always there). */
function generationOf(message: Buffer): number {
  const at = message.indexOf(GENERATION) + GENERATION.length;
  let n = 0;
  for (let i = at; i < message.length; i++) {
    const c = message[i]!;
    if (c < 48 || c > 57) break;
    n = n * 10 + c - 48;
  }
  return n;
}

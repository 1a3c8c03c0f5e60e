// The live feed's publisher (DESIGN §11.7): at every publish it compares what each tracked topic
// answers with what it answered at the previous one, serializes one message per change (once,
// whatever the number of subscribers) and hands it to the transports (uWS pub/sub, SSE), and
// keeps the last `replay_generations` generations of messages per topic for `since`. Topics
// with no subscriber are not computed (a wallet's topic costs a positions and activity read per
// publish); one that lost its last subscriber lingers a few publishes for a reconnect's `since`.
import type { Common } from '../../common/common.js';
import type { ReadModel } from '../../engine/publish/index.js';
import { FIXED_TOPICS, type Topic } from './topics.js';
import { healthData, newActivity, tvlData, vaultItems, vaultPoint, walletPositions } from './topicData.js';

export type MessageKind = 'vault.metrics' | 'vault.point' | 'tvl' | 'wallet.activity' | 'wallet.position' | 'wallet.request' | 'health';

/** Where messages go: every one of a publish, then `flushed` once after them (slow-consumer checks). */
export interface StreamSink {
  message(topic: string, bytes: Buffer): void;
  flushed(): void;
}

/**
 * The hook of async request state (DESIGN §11.8): the wallet's request items (the
 * /v1/users/{w}/requests item JSON) in `model`, keyed by request and state; a key the previous
 * publish did not have (a new request, or one that settled, was refunded or expired) is pushed
 * as `wallet.request`. Absent: no wallet.request messages.
 */
export type WalletRequests = (model: ReadModel, wallet: string) => Map<string, Buffer> | Promise<Map<string, Buffer>>;

export interface StreamHubOptions {
  common: Common;
  jobs: boolean;
  started: number;
  walletRequests?: WalletRequests;
}

export type Replay = { kind: 'messages'; messages: Buffer[] } | { kind: 'resync' };

export interface StreamHub {
  /** Compute and send the changes `model` brings (publishes run one after another, in order). */
  publish(model: ReadModel): Promise<void>;
  /** Count a subscriber of `topic` (a first one starts computing it from the newest generation). */
  track(topic: Topic): void;
  untrack(topic: Topic): void;
  /** The messages of `topic` after generation `since`, or resync when some of them are no longer kept. */
  replay(topic: string, since: number): Replay;
  addSink(sink: StreamSink): void;
  /** the newest model published, null before the first */
  latest(): ReadModel | null;
  /** topics computed now (at most MAX_TRACKED: past it subscribes to new topics are refused) */
  tracked(): number;
  /** messages and bytes held for replays (the memory bound's witness) */
  held(): { topics: number; messages: number; bytes: number };
}

interface Tracker {
  topic: Topic;
  subscribers: number;
  /** the generation it was computed from: replays reach back to here */
  from: number;
  /** publishes left before a topic with no subscriber is dropped */
  linger: number;
  ring: { generation: number; bytes: Buffer }[];
  /** what it answered at the last publish, by item */
  last: Map<string, Buffer>;
  lastActivity: string | null;
  lastRequests: Map<string, Buffer>;
}

/** Publishes a topic with no subscriber is still computed for, for a reconnect's `since`. */
const LINGER_PUBLISHES = 8;
/** Topics tracked at most (each wallet and vault topic one): subscribes past it are refused. */
export const MAX_TRACKED = 50_000;

export function createStreamHub(opts: StreamHubOptions): StreamHub {
  const keep = opts.common.config.stream.replay_generations;
  const trackers = new Map<string, Tracker>();
  const sinks: StreamSink[] = [];
  /** generations published since the hub's first, newest last (keep + 1 of them) */
  const generations: number[] = [];
  let model: ReadModel | null = null;
  let queue: Promise<void> = Promise.resolve();

  const newTracker = (topic: Topic, subscribers: number): Tracker => ({
    topic,
    subscribers,
    from: model?.generation ?? Number.POSITIVE_INFINITY,
    linger: LINGER_PUBLISHES,
    ring: [],
    last: new Map(),
    lastActivity: null,
    lastRequests: new Map(),
  });
  for (const name of FIXED_TOPICS) trackers.set(name, newTracker({ kind: name, name }, 1));

  /** A tracker's state as of `m` without messages (a topic starts here). */
  async function prime(t: Tracker, m: ReadModel, vaults: Vaults): Promise<void> {
    await compute(t, m, vaults, false);
    t.from = m.generation;
  }

  interface Vaults {
    visible: Map<string, Buffer>;
    all: () => Map<string, Buffer>;
  }

  /** The messages `m` brings to `t` (none when `emit` is false: its state only). */
  async function compute(t: Tracker, m: ReadModel, vaults: Vaults, emit: boolean): Promise<Buffer[]> {
    const out: Buffer[] = [];
    const head = `{"topic":${JSON.stringify(t.topic.name)},"kind":"`;
    const tail = `","generation":${m.generation},"refreshed_at":"${m.refreshedAt}","data":`;
    const message = (kind: MessageKind, data: Buffer) => {
      if (emit) out.push(Buffer.concat([Buffer.from(head + kind + tail), data, CLOSE]));
    };
    /** items of `now` that differ from `t.last` under `prefix` keys */
    const diff = (now: Map<string, Buffer>, prefix: string, kind: MessageKind) => {
      for (const [k, v] of now) {
        const key = prefix + k;
        const was = t.last.get(key);
        if (was === undefined || !was.equals(v)) message(kind, v);
        t.last.set(key, v);
      }
    };
    switch (t.topic.kind) {
      case 'vaults':
        diff(vaults.visible, '', 'vault.metrics');
        break;
      case 'tvl': {
        const data = tvlData(m);
        if (data) diff(new Map([['', data]]), '', 'tvl');
        break;
      }
      case 'health':
        // (uptime moves: a message at every publish)
        message('health', healthData(m, opts.jobs, opts.started));
        break;
      case 'vault': {
        const id = t.topic.vaultId;
        const item = vaults.all().get(id);
        if (item) diff(new Map([[id, item]]), 'm:', 'vault.metrics');
        const point = await vaultPoint(m, id);
        if (point) diff(new Map([[id, point]]), 'p:', 'vault.point');
        break;
      }
      case 'wallet': {
        const w = t.topic.wallet;
        diff(await walletPositions(m, w), 'p:', 'wallet.position');
        const act = await newActivity(m, w, t.lastActivity);
        t.lastActivity = act.newest;
        for (const row of act.rows) message('wallet.activity', row);
        if (opts.walletRequests) {
          const now = await opts.walletRequests(m, w);
          // a key names a request in one state: a new key is a new request or a state change
          // (an unresolved request's age grows every publish; that alone is not a change)
          for (const [k, v] of now) if (!t.lastRequests.has(k)) message('wallet.request', v);
          t.lastRequests = now;
        }
        break;
      }
    }
    return out;
  }

  async function publishNow(m: ReadModel): Promise<void> {
    const first = model === null;
    const previous = model;
    model = m;
    let all: Map<string, Buffer> | null = null;
    const vaults: Vaults = { visible: vaultItems(m, false), all: () => (all ??= vaultItems(m, true)) };
    if (first) {
      for (const t of trackers.values()) await prime(t, m, vaults);
      generations.push(m.generation);
      return;
    }
    // (a replaced store may start over at a lower generation: every replay then resyncs)
    if (previous && m.generation <= previous.generation) {
      for (const t of trackers.values()) {
        t.ring = [];
        await prime(t, m, vaults);
      }
      generations.length = 0;
      generations.push(m.generation);
      return;
    }
    generations.push(m.generation);
    while (generations.length > keep + 1) generations.shift();
    const floor = generations[0]!;
    const sent: [string, Buffer[]][] = [];
    for (const [name, t] of trackers) {
      if (t.subscribers === 0 && --t.linger <= 0) {
        trackers.delete(name);
        continue;
      }
      // a topic first asked for while this publish was prepared starts at it
      if (t.from === Number.POSITIVE_INFINITY) {
        await prime(t, m, vaults);
        continue;
      }
      const messages = await compute(t, m, vaults, true);
      for (const bytes of messages) t.ring.push({ generation: m.generation, bytes });
      while (t.ring.length > 0 && t.ring[0]!.generation <= floor) t.ring.shift();
      if (messages.length > 0) sent.push([name, messages]);
    }
    // every message of the publish goes out in one turn, after the ring holds it: a subscribe
    // between (replay then live) neither misses nor repeats one
    for (const sink of sinks) {
      for (const [name, messages] of sent) for (const bytes of messages) sink.message(name, bytes);
      sink.flushed();
    }
  }

  return {
    publish(m) {
      queue = queue.then(
        () => publishNow(m),
        () => publishNow(m),
      );
      queue.catch((err) => opts.common.logger.warn({ err: String(err), generation: m.generation }, 'stream: a publish could not be sent'));
      return queue;
    },
    track(topic) {
      const t = trackers.get(topic.name);
      if (t) {
        t.subscribers++;
        t.linger = LINGER_PUBLISHES;
        return;
      }
      const added = newTracker(topic, 1);
      trackers.set(topic.name, added);
      // its state as of the newest model, before the next publish compares with it
      if (model) {
        const m = model;
        let all: Map<string, Buffer> | null = null;
        queue = queue.then(() =>
          added.from === Number.POSITIVE_INFINITY ? prime(added, m, { visible: new Map(), all: () => (all ??= vaultItems(m, true)) }) : undefined,
        );
        queue.catch(() => undefined);
      }
    },
    untrack(topic) {
      const t = trackers.get(topic.name);
      if (t && t.subscribers > 0) t.subscribers--;
    },
    replay(topic, since) {
      const t = trackers.get(topic);
      const floor = generations.length > keep ? generations[0]! : (generations[0] ?? Number.POSITIVE_INFINITY);
      const newest = model?.generation ?? -1;
      if (!t || since > newest || since < floor || since < t.from) return { kind: 'resync' };
      return { kind: 'messages', messages: t.ring.filter((e) => e.generation > since).map((e) => e.bytes) };
    },
    addSink(sink) {
      sinks.push(sink);
    },
    latest: () => model,
    tracked: () => trackers.size,
    held() {
      let messages = 0;
      let bytes = 0;
      for (const t of trackers.values()) {
        messages += t.ring.length;
        for (const e of t.ring) bytes += e.bytes.length;
      }
      return { topics: trackers.size, messages, bytes };
    },
  };
}

const CLOSE = Buffer.from('}');

// The live feed end to end (DESIGN §11.7, issue #35 item 1): `vaultd serve` on the living demo
// world (demo.hour_seconds 1) with real WebSocket and SSE clients over loopback. Every
// message's data is the REST answer of its generation; `since` replays exactly what was missed
// and resyncs past the kept generations; limits, auth and hidden vaults; a slow consumer is cut
// with 1013 and the server's memory stays bounded; SIGTERM under 1,000 streams exits 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../client/index.js';
import { PROJECT_ROOT } from '../common/version.js';
import { ensureNginx, startNginxSite } from './helpers/nginx.js';
import { smallDemoDb, stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { type Frame, hasWebSocket, openStream, type StreamMessage, type TestStream, upgradeStatus } from './helpers/streamClient.js';

const get = async (port: number, path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).json() as Promise<{ data: any; meta: any }>;
const isMsg = (f: Frame): f is Frame & StreamMessage => 'topic' in f;
const metric = async (port: number, name: string): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

describe.skipIf(!hasWebSocket)('live feed: /v1/stream and /v1/stream/sse', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vaultd-stream-'));
  const db = join(dir, 'a.duckdb');
  const children: ChildProcess[] = [];
  let server: ChildProcess;
  let port = 0;
  let watcher: TestStream;
  let vaultId = '';
  let hiddenId = '';
  let wallet = '';

  async function serve(config: object, file: string): Promise<{ child: ChildProcess; port: number }> {
    const path = join(dir, `${file}.json`);
    writeFileSync(path, JSON.stringify({ server: { host: '127.0.0.1', port: 0 }, demo: { hour_seconds: 1 }, ...config }));
    const child = vaultdSpawn(['serve', '--config', path, '--db', join(dir, `${file}.duckdb`)]);
    children.push(child);
    return { child, port: await waitForListening(child) };
  }

  beforeAll(async () => {
    for (const f of ['a', 'b']) smallDemoDb(join(dir, `${f}.duckdb`));
    ({ child: server, port } = await serve({ stream: { replay_generations: 3, max_connections_per_ip: 1100 } }, 'a'));
    const listed = await get(port, '/v1/vaults');
    const all = await get(port, '/v1/vaults?include_hidden=true');
    vaultId = listed.data[0].vault_id;
    hiddenId = all.data.map((v: any) => v.vault_id).find((id: string) => !listed.data.some((v: any) => v.vault_id === id)) ?? '';
    wallet = vaultd(['wallets', '--db', db]).stdout.split('\n')[0]!;
    watcher = await openStream(`ws://127.0.0.1:${port}/v1/stream`);
    watcher.send({ op: 'subscribe', topics: ['vaults', 'tvl', 'health', `vault:${vaultId}`, `wallet:${wallet}`] });
    await watcher.next((f) => f.op === 'subscribed');
  }, 300_000);

  afterAll(async () => {
    watcher?.close();
    await stopChildren(children);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a request that leaves pending is pushed once as wallet.request, the /requests item in its new state', async () => {
    const wallets = vaultd(['wallets', '--db', db]).stdout.split('\n').filter(Boolean);
    // the unresolved request whose deadline comes first leaves pending by then (settled, refunded or expired)
    type Req = { request_hash: string; vault_id: string; status: string; deadline: string | null };
    const pendingOf = async (w: string) =>
      ((await get(port, `/v1/users/${w}/requests?status=pending&include_hidden=true&limit=1000`)).data as Req[]).filter((r) => r.deadline !== null);
    let pick: { w: string; r: Req } | null = null;
    for (const w of wallets) for (const r of await pendingOf(w)) if (!pick || r.deadline! < pick.r.deadline!) pick = { w, r };
    expect(pick, 'a pending request with a deadline in the demo world').not.toBeNull();
    const s = await openStream(`ws://127.0.0.1:${port}/v1/stream`);
    try {
      s.send({ op: 'subscribe', topics: [`wallet:${pick!.w}`] });
      await s.next((f) => f.op === 'subscribed');
      // subscribed first, then still pending: its change cannot fall between the two
      const still = (await pendingOf(pick!.w)).some((r) => r.request_hash === pick!.r.request_hash);
      if (!still) return expect.fail(`request ${pick!.r.request_hash} left pending before the subscription; the world moved too fast`);
      const isIt = (f: Frame) => isMsg(f) && f.kind === 'wallet.request' && (f.data as Req).request_hash === pick!.r.request_hash;
      // (a request opened in a publish the subscription had not seen yet comes first as pending: a new request)
      const m = (await s.next((f) => isIt(f) && ((f as StreamMessage).data as Req).status !== 'pending')) as StreamMessage;
      const pushed = m.data as Req & Record<string, unknown>;
      expect(['settled', 'refunded', 'expired']).toContain(pushed.status);
      expect(m.topic).toBe(`wallet:${pick!.w}`);
      // the same request as REST has it (its age grows with every publish; the rest is the item)
      const rest = ((await get(port, `/v1/users/${pick!.w}/requests?include_hidden=true&limit=1000`)).data as (Req & Record<string, unknown>)[]).find(
        (r) => r.request_hash === pick!.r.request_hash,
      )!;
      const { age_seconds: _a, status: _s, resolved: _r, refundable: _f, ...fixed } = pushed;
      expect(rest).toMatchObject(fixed);
      expect(Object.keys(pushed)).toEqual(Object.keys(rest));
      // once per state: no second message of the same state
      const after = s.frames.length;
      await watcher.next((f) => isMsg(f) && f.generation > m.generation + 1);
      expect(s.frames.slice(after).filter((f) => isIt(f) && (f as StreamMessage).data && ((f as StreamMessage).data as Req).status === pushed.status)).toEqual(
        [],
      );
    } finally {
      s.close();
    }
  });

  it('waitForSettlement hears the settlement on the feed: with polls 10 minutes apart, it returns when the request settles', async () => {
    const wallets = vaultd(['wallets', '--db', db]).stdout.split('\n').filter(Boolean);
    type Req = { request_hash: string; vault_id: string; requested: { timestamp: string } };
    // the longest-pending requests are the likeliest to settle or be refunded next
    const pending: { w: string; r: Req }[] = [];
    for (const w of wallets)
      for (const r of (await get(port, `/v1/users/${w}/requests?status=all&include_hidden=true&limit=1000`)).data as (Req & { status: string })[])
        if (r.status === 'pending' || r.status === 'expired') pending.push({ w, r });
    pending.sort((a, b) => a.r.requested.timestamp.localeCompare(b.r.requested.timestamp));
    const candidates = pending.slice(0, 6);
    expect(candidates.length).toBeGreaterThan(0);
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}` });
    const stop = new AbortController();
    try {
      // the first poll finds each pending; the next poll is 10 minutes away: only the feed can end a wait in time
      const flow = await Promise.any(
        candidates.map(({ w, r }) =>
          client.waitForSettlement({ wallet: w, requestHash: r.request_hash, vaultId: r.vault_id, pollMs: 600_000, timeoutMs: 170_000, signal: stop.signal }),
        ),
      );
      expect(['settled', 'refunded']).toContain(flow.status);
      expect(candidates.map((c) => c.r.request_hash)).toContain(flow.request_hash);
    } finally {
      stop.abort();
    }
  });

  it('every message carries the REST answer of its generation', async () => {
    let compared = 0;
    for (let tries = 0; tries < 20 && compared === 0; tries++) {
      // the generation after the newest seen: its messages, then REST while it is still the newest
      const seen = watcher.messages().at(-1)?.generation ?? 0;
      const first = (await watcher.next((f) => isMsg(f) && f.topic === 'vaults' && f.generation > seen)) as StreamMessage;
      const g = first.generation;
      await watcher.next((f) => isMsg(f) && f.topic === 'health' && f.generation === g);
      const [list, tvl, point, positions, health] = await Promise.all([
        get(port, '/v1/vaults'),
        get(port, '/v1/tvl'),
        get(port, `/v1/vaults/${vaultId}/timeseries?granularity=hour&order=desc&limit=1`),
        get(port, `/v1/users/${wallet}/positions`),
        get(port, '/health') as Promise<any>,
      ]);
      if (list.meta.refreshed_at !== first.refreshed_at || tvl.meta.refreshed_at !== first.refreshed_at || point.meta.refreshed_at !== first.refreshed_at)
        continue;
      const of = watcher.messages().filter((m) => m.generation === g);
      const byKind = (topic: string, kind: string) => of.filter((m) => m.topic === topic && m.kind === kind).map((m) => m.data as any);
      // the demo world moves every vault each hour: one message per listed vault
      expect(byKind('vaults', 'vault.metrics').sort((a, b) => a.vault_id.localeCompare(b.vault_id))).toEqual(
        [...list.data].sort((a: any, b: any) => a.vault_id.localeCompare(b.vault_id)),
      );
      for (const m of byKind('tvl', 'tvl')) expect(m).toEqual(tvl.data);
      expect(byKind(`vault:${vaultId}`, 'vault.point')).toEqual(point.data);
      expect(byKind(`vault:${vaultId}`, 'vault.metrics')).toEqual(list.data.filter((v: any) => v.vault_id === vaultId));
      for (const p of byKind(`wallet:${wallet}`, 'wallet.position')) expect(p).toEqual(positions.data.find((x: any) => x.vault_id === p.vault_id));
      const h = byKind('health', 'health');
      expect(h).toHaveLength(1);
      expect({ ...h[0], uptime_seconds: 0 }).toEqual({ ...health, uptime_seconds: 0 });
      // every message names its topic, kind, generation and publish time
      for (const m of of) expect(Object.keys(m)).toEqual(['topic', 'kind', 'generation', 'refreshed_at', 'data']);
      compared++;
    }
    expect(compared).toBe(1);
    // the default list's rules: a hidden vault never rides the vaults topic
    if (hiddenId) expect(watcher.messages().filter((m) => m.topic === 'vaults' && (m.data as any).vault_id === hiddenId)).toEqual([]);
  }, 120_000);

  it('since replays exactly the missed messages, then the stream goes on', async () => {
    const a = await openStream(`ws://127.0.0.1:${port}/v1/stream`);
    a.send({ op: 'subscribe', topics: ['vaults', 'tvl'] });
    const g0 = (await a.next((f) => f.op === 'subscribed')).generation as number;
    a.close();
    await a.closed;
    // two publishes pass while nobody listens on this connection
    await watcher.next((f) => isMsg(f) && f.generation >= g0 + 2);
    const b = await openStream(`ws://127.0.0.1:${port}/v1/stream`);
    b.send({ op: 'subscribe', topics: ['vaults', 'tvl'], since: g0 });
    const k = (await b.next((f) => f.op === 'subscribed')).generation as number;
    // the next publish, on both: everything up to k has arrived everywhere
    await b.next((f) => isMsg(f) && f.generation > k);
    await watcher.next((f) => isMsg(f) && f.generation > k);
    const window = (s: TestStream) => s.messages().filter((m) => m.generation > g0 && m.generation <= k && (m.topic === 'vaults' || m.topic === 'tvl'));
    expect(window(b).length).toBeGreaterThan(0);
    expect(window(b)).toEqual(window(watcher));
    // replayed ones came before the ack, in generation order
    const ack = b.frames.findIndex((f) => f.op === 'subscribed');
    expect(b.frames.slice(0, ack).every(isMsg)).toBe(true);
    b.close();
  }, 120_000);

  it('a since older than the kept generations gets one resync', async () => {
    const g = watcher.messages().at(-1)!.generation;
    await watcher.next((f) => isMsg(f) && f.generation >= g + 4); // replay_generations is 3
    const c = await openStream(`ws://127.0.0.1:${port}/v1/stream`);
    c.send({ op: 'subscribe', topics: ['vaults'], since: g });
    await c.next((f) => f.op === 'subscribed');
    expect(c.frames.slice(0, 2)).toEqual([{ op: 'resync' }, expect.objectContaining({ op: 'subscribed' })]);
    c.send({ op: 'subscribe', topics: ['tvl'], since: 0 });
    await c.next((f) => f.op === 'subscribed', 2);
    expect(c.frames[2]).toEqual({ op: 'resync' });
    c.close();
  }, 120_000);

  it('SSE serves the same messages, with id = generation for Last-Event-ID', async () => {
    const curl = spawn('curl', ['-sN', `http://127.0.0.1:${port}/v1/stream/sse?topics=vaults`]);
    children.push(curl);
    let out = '';
    const events = () =>
      out
        .split('\n\n')
        .filter((e) => e.startsWith('id: '))
        .map((e) => ({ id: Number(/^id: (\d+)/.exec(e)![1]), msg: JSON.parse(e.split('\ndata: ')[1]!) as StreamMessage }));
    await new Promise<void>((resolve) =>
      curl.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (new Set(events().map((e) => e.id)).size >= 2) resolve();
      }),
    );
    curl.kill();
    const got = events();
    for (const { id, msg } of got) {
      expect(id).toBe(msg.generation);
      const same = (f: Frame) => isMsg(f) && f.topic === 'vaults' && f.generation === id && (f.data as any).vault_id === (msg.data as any).vault_id;
      expect(await watcher.next(same)).toEqual(msg);
    }
    // Last-Event-ID: the messages after it, replayed first
    const from = got[0]!.id;
    const r = spawn('curl', ['-sN', '-H', `Last-Event-ID: ${from}`, `http://127.0.0.1:${port}/v1/stream/sse?topics=vaults`]);
    children.push(r);
    let replay = '';
    await new Promise<void>((resolve) =>
      r.stdout.on('data', (d: Buffer) => {
        replay += d.toString();
        if (replay.includes('event: subscribed')) resolve();
      }),
    );
    r.kill();
    const replayed = replay
      .split('event: subscribed')[0]!
      .split('\n\n')
      .filter((e) => e.startsWith('id: '))
      .map((e) => JSON.parse(e.split('\ndata: ')[1]!));
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.every((m: StreamMessage) => m.generation > from)).toBe(true);
  }, 120_000);

  it('topics are checked: unknown names, unknown vaults; a hidden vault by id as on REST', async () => {
    const s = await openStream(`ws://127.0.0.1:${port}/v1/stream`);
    s.send({ op: 'subscribe', topics: ['prices'] });
    expect(await s.next((f) => f.op === 'error')).toMatchObject({ code: 'INVALID_PARAMETER', message: expect.stringContaining('"prices" is not a topic') });
    s.send({ op: 'subscribe', topics: ['vault:1:0x0000000000000000000000000000000000000001'] });
    expect(await s.next((f) => f.op === 'error', 1)).toMatchObject({ code: 'NOT_FOUND' });
    if (hiddenId) {
      expect((await fetch(`http://127.0.0.1:${port}/v1/vaults/${hiddenId}`)).status).toBe(200);
      s.send({ op: 'subscribe', topics: [`vault:${hiddenId}`] });
      expect(await s.next((f) => f.op !== 'error', 2)).toMatchObject({ op: 'subscribed' });
    }
    s.close();
  });

  it('a slow consumer is cut with 1013 and the server does not hold its backlog', async () => {
    const rss0 = await metric(port, 'vaultd_process_resident_memory_bytes');
    expect(rss0).toBeGreaterThan(0);
    // a raw client that upgrades, asks for replays over and over, and never reads
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(
      'GET /v1/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    await new Promise((r) => sock.once('data', r));
    sock.pause();
    const since = watcher.messages().at(-1)!.generation - 2;
    const op = Buffer.from(JSON.stringify({ op: 'subscribe', topics: ['vaults', 'tvl', 'health', `vault:${vaultId}`], since }));
    const held = watcher.messages().filter((m) => m.generation > since && ['vaults', 'tvl', 'health'].includes(m.topic));
    const perOp = held.reduce((n, m) => n + JSON.stringify(m).length, 0);
    const OPS = 4000;
    for (let i = 0; i < OPS; i++) sock.write(frame(op));
    // 4000 replays of ~perOp bytes each were asked for: far more than the server may hold
    expect(OPS * perOp).toBeGreaterThan(100 * 1024 * 1024);
    while ((await metric(port, 'vaultd_stream_slow_consumers_total{transport="websocket"}')) < 1) await new Promise((r) => setTimeout(r, 200));
    const rss1 = await metric(port, 'vaultd_process_resident_memory_bytes');
    expect(rss1 - rss0).toBeLessThan(48 * 1024 * 1024);
    // what reaches the client ends with a close frame of code 1013
    sock.resume();
    const got: Buffer[] = [];
    sock.on('data', (d: Buffer) => got.push(d));
    await new Promise((r) => sock.once('close', r));
    const all = Buffer.concat(got);
    const close = all.lastIndexOf(Buffer.from([0x88]));
    expect(close).toBeGreaterThan(0);
    expect(all.readUInt16BE(close + 2)).toBe(1013);
  }, 120_000);

  describe('limits and auth (auth.anonymous false)', () => {
    let p = 0;
    let secret = '';
    beforeAll(async () => {
      const made = vaultd(['keys', 'create', 'streamer', '--db', join(dir, 'b.duckdb')]);
      secret = made.stdout.trim().split('\n').at(-1)!;
      ({ port: p } = await serve(
        { auth: { anonymous: false }, stream: { max_topics_per_connection: 2, max_connections_per_ip: 2, max_connections_per_key: 3 } },
        'b',
      ));
    }, 300_000);

    it('anonymous streams may not subscribe; a bad key is refused; a good one is', async () => {
      const anon = await openStream(`ws://127.0.0.1:${p}/v1/stream`);
      anon.send({ op: 'subscribe', topics: ['tvl'] });
      expect(await anon.next((f) => f.op === 'error')).toMatchObject({ code: 'UNAUTHORIZED' });
      expect((await anon.closed).code).toBe(1008);
      const bad = await openStream(`ws://127.0.0.1:${p}/v1/stream`);
      bad.send({ op: 'auth', key: 'vk_nope' });
      expect(await bad.next((f) => f.op === 'error')).toMatchObject({ code: 'UNAUTHORIZED' });
      expect((await bad.closed).code).toBe(1008);
      const good = await openStream(`ws://127.0.0.1:${p}/v1/stream`);
      good.send({ op: 'auth', key: secret });
      expect(await good.next((f) => f.op === 'authed')).toMatchObject({ op: 'authed' });
      good.send({ op: 'subscribe', topics: ['tvl', 'health', 'vaults'] });
      expect(await good.next((f) => f.op === 'error')).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('at most 2 topics per stream') });
      good.send({ op: 'subscribe', topics: ['tvl', 'health'] });
      expect(await good.next((f) => f.op === 'subscribed')).toMatchObject({ topics: ['tvl', 'health'] });
      expect(await good.next((f) => isMsg(f) && f.topic === 'health')).toMatchObject({ kind: 'health' });
      good.close();
      await good.closed;
    }, 120_000);

    it('connections per IP, and per key beyond it', async () => {
      const open = [await openStream(`ws://127.0.0.1:${p}/v1/stream`), await openStream(`ws://127.0.0.1:${p}/v1/stream`)];
      expect(await upgradeStatus(p)).toBe(429);
      expect(await upgradeStatus(p, {}, '/v1/stream/sse?topics=tvl')).toBe(401);
      // a key in the upgrade's headers: its own bucket (3)
      expect(await upgradeStatus(p, { 'x-api-key': secret })).toBe(101);
      expect(await upgradeStatus(p, { 'x-api-key': 'vk_wrong' })).toBe(401);
      for (const s of open) s.close();
      await Promise.all(open.map((s) => s.closed));
      // slots come back when streams close
      const again = await openStream(`ws://127.0.0.1:${p}/v1/stream`);
      again.close();
    }, 120_000);
  });

  for (const transport of ['websocket', 'sse'] as const) {
    it(`SDK client.stream over ${transport}: a dropped connection resumes with since, no gap and no repeat`, async () => {
      // a TCP relay the test can cut, between the client and the server
      const relayed = new Set<net.Socket>();
      const relay = net.createServer((inbound) => {
        const out = net.connect(port, '127.0.0.1');
        relayed.add(inbound).add(out);
        inbound.pipe(out).pipe(inbound);
        const drop = () => (inbound.destroy(), out.destroy());
        inbound.on('error', drop).on('close', drop);
        out.on('error', drop).on('close', drop);
      });
      await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
      const client = createClient({ baseUrl: `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}` });
      const stream = client.stream({ topics: ['vaults'], transport, reconnect: { baseDelayMs: 50, maxDelayMs: 200 } });
      const got: StreamMessage[] = [];
      let resyncs = 0;
      stream.on('resync', () => resyncs++);
      const reach = (g: number) =>
        new Promise<void>((resolve) => {
          const check = (m: StreamMessage) => m.generation >= g && (stream.off('message', check), resolve());
          stream.on('message', check);
        });
      const iterated: number[] = [];
      const iterating = (async () => {
        for await (const e of stream) if (e.type === 'message') iterated.push(e.message.generation);
      })();
      stream.on('message', (m) => got.push(m as StreamMessage));
      const g = watcher.messages().at(-1)?.generation ?? ((await watcher.next(isMsg)).generation as number);
      await reach(g + 1);
      const cut = got.at(-1)!.generation;
      for (const s of relayed) s.destroy();
      // (the first message of cut + 3: all of cut + 2 has arrived)
      await reach(cut + 3);
      stream.close();
      relay.close();
      await watcher.next((f) => isMsg(f) && f.generation > cut + 2);
      const window = (ms: StreamMessage[]) => ms.filter((m) => m.topic === 'vaults' && m.generation > cut && m.generation <= cut + 2);
      expect(resyncs).toBe(0);
      expect(window(got)).toEqual(window(watcher.messages()));
      // the iterator drains what was queued, then ends with the stream
      await iterating;
      expect(iterated).toEqual(got.map((m) => m.generation));
    }, 120_000);
  }

  it('behind nginx (docs/nginx.conf as shipped): WebSocket and SSE streams work through it', async (t) => {
    const found = ensureNginx();
    if ('reason' in found) return t.skip(found.reason);
    const nginx = await startNginxSite(found.bin, join(dir, 'nginx'), readFileSync(join(PROJECT_ROOT, 'docs', 'nginx.conf'), 'utf8'), port);
    try {
      const ws = await openStream(`${nginx.url.replace('http', 'ws')}/v1/stream`);
      ws.send({ op: 'subscribe', topics: ['vaults'] });
      const ack = await ws.next((f) => f.op === 'subscribed');
      const m = (await ws.next((f) => isMsg(f) && f.generation > (ack.generation as number))) as StreamMessage;
      const same = (f: Frame) => isMsg(f) && f.topic === 'vaults' && f.generation === m.generation && (f.data as any).vault_id === (m.data as any).vault_id;
      expect(await watcher.next(same)).toEqual(m);
      ws.close();
      // SSE unbuffered: the event arrives while the response is still open
      const curl = spawn('curl', ['-sN', `${nginx.url}/v1/stream/sse?topics=tvl,health`]);
      children.push(curl);
      let out = '';
      await new Promise<void>((resolve) =>
        curl.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (/id: \d+\ndata: \{"topic":"health"/.test(out)) resolve();
        }),
      );
      curl.kill();
      expect(out).toContain('event: subscribed');
    } finally {
      await nginx.stop();
    }
  }, 120_000);

  it('the node transport says plainly that the feed needs uws: 501 on both routes', async () => {
    smallDemoDb(join(dir, 'n.duckdb'));
    const { port: np } = await serve({ server: { host: '127.0.0.1', port: 0, transport: 'node' } }, 'n');
    for (const path of ['/v1/stream', '/v1/stream/sse?topics=tvl']) {
      const res = await fetch(`http://127.0.0.1:${np}${path}`);
      expect(res.status, path).toBe(501);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('needs the uws transport');
    }
    expect(await upgradeStatus(np)).toBe(501);
    // REST answers as before
    expect((await fetch(`http://127.0.0.1:${np}/v1/tvl`)).status).toBe(200);
  }, 300_000);

  it('SIGTERM with 1,000 open streams: every one closed with 1001, exit 0', async () => {
    const streams: TestStream[] = [];
    for (let i = 0; i < 1000; i++) streams.push(await openStream(`ws://127.0.0.1:${port}/v1/stream`));
    for (const s of streams) s.send({ op: 'subscribe', topics: ['tvl'] });
    await Promise.all(streams.map((s) => s.next((f) => f.op === 'subscribed')));
    const exit = new Promise<number | null>((r) => server.once('exit', (code) => r(code)));
    server.kill('SIGTERM');
    const codes = await Promise.all(streams.map((s) => s.closed.then((c) => c.code)));
    expect(codes.filter((c) => c === 1001)).toHaveLength(1000);
    expect(await exit).toBe(0);
  }, 180_000);
});

/** A masked client text frame (RFC 6455 §5.2) with a zero mask: the payload as is. */
function frame(payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x81, 0x80 | len]) : Buffer.from([0x81, 0x80 | 126, len >> 8, len & 0xff]);
  return Buffer.concat([head, Buffer.alloc(4), payload]);
}

// The client's transport against tiny loopback HTTP servers, for what vaultd cannot be made to
// emit on demand (INTERNAL, NOT_READY: a running vaultd has always published), answers that
// are not vaultd's (a proxy's 502), a dead port, a hung request, and option validation.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_VERSION, createClient, VaultdApiError, VaultdClientError } from 'vaultd/client';
import { listenOnLoopback, type Loopback } from '../helpers/loopback.js';

interface Hit {
  url: string;
  headers: IncomingHttpHeaders;
  at: number;
}

let open: Loopback[] = [];
afterEach(async () => {
  await Promise.all(open.map((l) => l.close()));
  open = [];
});

/** A loopback server answering each request with `answer(n, res)` (n = 1, 2, …); records hits. */
async function serve(answer: (n: number, res: ServerResponse, hit: Hit) => void): Promise<{ url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const hit = { url: req.url!, headers: req.headers, at: Date.now() };
    hits.push(hit);
    answer(hits.length, res, hit);
  });
  const l = await listenOnLoopback(server);
  open.push(l);
  return { url: l.url, hits };
}

function envelope(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}, details?: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': `req-${status}`, ...headers });
  res.end(JSON.stringify({ error: { code, message, ...(details === undefined ? {} : { details }) } }));
}

function ok(res: ServerResponse, body: unknown = { status: 'ok', version: 'x', uptime_seconds: 1 }): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

async function rejection(p: Promise<unknown>): Promise<any> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e) => e,
  );
}

describe('typed errors for the codes vaultd cannot be made to emit (loopback server)', () => {
  it('INTERNAL: a 500 envelope is a typed error carrying the request id, and is not retried', async () => {
    const s = await serve((_, res) => envelope(res, 500, 'INTERNAL', 'internal error (request req-500); the server logged the cause'));
    const e = await rejection(createClient({ baseUrl: s.url, retry: { baseDelayMs: 1 } }).vaults());
    expect(e).toBeInstanceOf(VaultdApiError);
    expect(e).toMatchObject({
      status: 500,
      code: 'INTERNAL',
      requestId: 'req-500',
      message: 'internal error (request req-500); the server logged the cause',
      retryable: false,
    });
    expect(s.hits).toHaveLength(1);
  });

  it('NOT_READY: a 503 is retried honoring Retry-After, then succeeds', async () => {
    const s = await serve((n, res) =>
      n === 1 ? envelope(res, 503, 'NOT_READY', 'no snapshot has been published yet; retry in a few seconds', { 'Retry-After': '1' }) : ok(res),
    );
    const { body, response } = await createClient({ baseUrl: s.url }).withResponse.health();
    expect(body.status).toBe('ok');
    expect(response.attempts).toBe(2);
    expect(s.hits[1]!.at - s.hits[0]!.at).toBeGreaterThanOrEqual(990);
  });

  it('NOT_READY: after the last retry the typed error arrives', async () => {
    const s = await serve((_, res) => envelope(res, 503, 'NOT_READY', 'no snapshot has been published yet; retry in a few seconds', { 'Retry-After': '0' }));
    const e = await rejection(createClient({ baseUrl: s.url, retry: { retries: 2 } }).strategies());
    expect(e).toMatchObject({ name: 'VaultdApiError', status: 503, code: 'NOT_READY', retryAfterSeconds: 0, retryable: true });
    expect(s.hits).toHaveLength(3);
  });

  it('a 503 without Retry-After backs off exponentially', async () => {
    const s = await serve((n, res) => (n < 3 ? envelope(res, 503, 'NOT_READY', 'not yet') : ok(res)));
    const { response } = await createClient({ baseUrl: s.url, retry: { baseDelayMs: 40 } }).withResponse.health();
    expect(response.attempts).toBe(3);
    const [a, b, c] = s.hits.map((h) => h.at);
    expect(b! - a!).toBeGreaterThanOrEqual(15); // 40 · [0.5, 1)
    expect(c! - b!).toBeGreaterThanOrEqual(35); // 80 · [0.5, 1)
  });

  it('Retry-After as an HTTP date', async () => {
    const s = await serve((n, res) =>
      n === 1 ? envelope(res, 429, 'RATE_LIMITED', 'slow down', { 'Retry-After': new Date(Date.now() + 1500).toUTCString() }) : ok(res),
    );
    const { response } = await createClient({ baseUrl: s.url }).withResponse.health();
    expect(response.attempts).toBe(2);
    expect(s.hits[1]!.at - s.hits[0]!.at).toBeGreaterThanOrEqual(400);
  });

  it('never retries other 4xx', async () => {
    for (const [status, code] of [
      [400, 'INVALID_PARAMETER'],
      [401, 'UNAUTHORIZED'],
      [404, 'NOT_FOUND'],
      [405, 'METHOD_NOT_ALLOWED'],
      [422, 'INVALID_CURSOR'],
    ] as const) {
      const s = await serve((_, res) => envelope(res, status, code, 'no'));
      const e = await rejection(createClient({ baseUrl: s.url, retry: { baseDelayMs: 1 } }).vaults());
      expect(e).toMatchObject({ status, code, retryable: false });
      expect(s.hits, String(status)).toHaveLength(1);
    }
  });

  it("an error that is not vaultd's envelope is UNEXPECTED_RESPONSE with the status", async () => {
    const s = await serve((_, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html>bad gateway</html>');
    });
    const e = await rejection(createClient({ baseUrl: s.url }).vaults());
    expect(e).toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 502,
      message: `GET ${s.url}/v1/vaults answered 502 without vaultd's error envelope: <html>bad gateway</html>`,
    });
    const notJson = await serve((_, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"data":');
    });
    expect(await rejection(createClient({ baseUrl: notJson.url }).vaults())).toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      message: `GET ${notJson.url}/v1/vaults answered 200 with a body that is not JSON`,
    });
  });
});

describe('transport', () => {
  it('sends the credential, a User-Agent, the request id; encodes path parameters and drops unset query parameters', async () => {
    const s = await serve((_, res) => ok(res, { data: [], meta: {} }));
    await createClient({ baseUrl: `${s.url}/prefix/`, apiKey: 'secret-1' }).vaultsBySlug('a b/c?', { requestId: 'r-1' });
    await createClient({ baseUrl: s.url, userAgent: 'my-app/2' }).activity('0xAB', { vaultId: '1:0xcd', order: 'asc' });
    expect(s.hits[0]).toMatchObject({
      url: '/prefix/v1/vaults/slug/a%20b%2Fc%3F',
      headers: { authorization: 'Bearer secret-1', 'x-request-id': 'r-1', 'user-agent': `vaultd-client/${CLIENT_VERSION}` },
    });
    expect(s.hits[1]).toMatchObject({ url: '/v1/users/0xAB/activity?order=asc&vault_id=1%3A0xcd', headers: { 'user-agent': 'my-app/2' } });
    expect(s.hits[1]!.headers.authorization).toBeUndefined();
  });

  it('error: a dead port is NETWORK after the retries', async () => {
    const s = await serve(() => undefined);
    const url = s.url;
    await open.pop()!.close();
    const e = await rejection(createClient({ baseUrl: url, retry: { retries: 2, baseDelayMs: 1 } }).health());
    expect(e).toBeInstanceOf(VaultdClientError);
    expect(e.code).toBe('NETWORK');
    expect(e.message).toMatch(new RegExp(`^GET ${url}/health failed: `));
  });

  it('AbortSignal: aborts a hung request, and a wait for Retry-After', async () => {
    const hung = await serve(() => undefined);
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error('gave up')), 50);
    await expect(createClient({ baseUrl: hung.url }).vaults({ signal: abort.signal })).rejects.toThrow('gave up');

    // an hour's Retry-After the client would honour: only the abort can end this call within the test's timeout
    const limited = await serve((_, res) => envelope(res, 429, 'RATE_LIMITED', 'slow down', { 'Retry-After': '3600' }));
    const abort2 = new AbortController();
    setTimeout(() => abort2.abort(new Error('no more waiting')), 100);
    await expect(createClient({ baseUrl: limited.url, retry: { maxDelayMs: 7_200_000 } }).vaults({ signal: abort2.signal })).rejects.toThrow('no more waiting');
    expect(limited.hits).toHaveLength(1);
  });

  it('error: options are checked where they enter, with exact messages', () => {
    expect(() => createClient({ baseUrl: 'localhost:8080/x' })).toThrow('createClient: baseUrl must be an absolute http(s) URL, got "localhost:8080/x"');
    expect(() => createClient({ baseUrl: 'ftp://x' })).toThrow('createClient: baseUrl must be an absolute http(s) URL, got "ftp://x"');
    expect(() => createClient({ baseUrl: 'http://x', apiKey: '' })).toThrow('createClient: apiKey must be a non-empty string');
    expect(() => createClient({ baseUrl: 'http://x', retry: { retries: -1 } })).toThrow('createClient: retry.retries must be a non-negative integer, got -1');
    expect(() => createClient({ baseUrl: 'http://x', retry: { maxDelayMs: 1.5 } })).toThrow(
      'createClient: retry.maxDelayMs must be a non-negative integer, got 1.5',
    );
    expect(() => createClient(undefined as never)).toThrow('createClient: options must be an object with a baseUrl');
    try {
      createClient({ baseUrl: 'nope' });
    } catch (e) {
      expect(e).toMatchObject({ name: 'VaultdClientError', code: 'INVALID_ARGUMENT' });
    }
  });
});

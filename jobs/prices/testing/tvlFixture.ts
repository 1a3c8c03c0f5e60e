// A local HTTP server for external-TVL-source tests (DESIGN §4.5): each path answers a fixed
// status and body text (written verbatim, so exponent numbers and broken JSON reach the
// client as is), or never answers at all.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface TvlRoute {
  status?: number;
  body?: string;
  /** never answer (the socket is dropped on close) */
  hang?: boolean;
}

export interface TvlFixture {
  url: string;
  readonly requests: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startTvlFixture(routes: Readonly<Record<string, TvlRoute>>): Promise<TvlFixture> {
  const requests: TvlFixture['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    requests.push({ path, headers: req.headers });
    const route = routes[path];
    if (route?.hang) return;
    res.writeHead(route ? (route.status ?? 200) : 404, { 'content-type': 'application/json' });
    res.end(route ? (route.body ?? '') : '{"error":"not found"}');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

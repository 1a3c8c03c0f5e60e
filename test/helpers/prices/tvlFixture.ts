// A local HTTP server for external-TVL-source tests (DESIGN §4.5): each path answers a fixed
// status and body text (written verbatim, so exponent numbers and broken JSON reach the
// client as is), or never answers at all.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from '../loopback.js';

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
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    requests.push({ path, headers: req.headers });
    const route = routes[path];
    if (route?.hang) return;
    res.writeHead(route ? (route.status ?? 200) : 404, { 'content-type': 'application/json' });
    res.end(route ? (route.body ?? '') : '{"error":"not found"}');
  });
  const loopback = await listenOnLoopback(server);
  return {
    url: loopback.url,
    requests,
    close: loopback.close,
  };
}

// The baselines of the HTTP bench (DESIGN §8), one per process so each can be pinned to the
// server core alone: a bare uWebSockets.js handler, Fastify and node:http, each answering
// GET on the spec's paths with the same prebuilt bytes and header list vaultd sent.
// Usage: node dist/bench/http/baselineServer.js <uws|fastify|node-http> <port> <spec.json>
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import uWS from 'uWebSockets.js';
import { importBenchPackage } from '../benchPackage.js';

export type BaselineKind = 'uws' | 'fastify' | 'node-http';

/** What every baseline serves: path → body file and the response headers (no Date/Length). */
export interface BaselineSpec {
  routes: Record<string, { bodyFile: string; headers: [string, string][] }>;
}

interface Route {
  body: Buffer;
  headers: [string, string][];
  headerObject: Record<string, string>;
}

function loadRoutes(specPath: string): Map<string, Route> {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as BaselineSpec;
  return new Map(
    Object.entries(spec.routes).map(([path, r]) => {
      const body = readFileSync(r.bodyFile);
      return [path, { body, headers: r.headers, headerObject: Object.fromEntries(r.headers) }];
    }),
  );
}

function serveUws(routes: Map<string, Route>, port: number): void {
  const app = uWS.App();
  for (const [path, r] of routes) {
    app.get(path, (res) => {
      res.writeStatus('200 OK');
      for (const [k, v] of r.headers) res.writeHeader(k, v);
      res.end(r.body);
    });
  }
  app.any('/*', (res) => {
    res.writeStatus('404 Not Found').end();
  });
  app.listen('127.0.0.1', port, (token) => {
    if (!token) {
      console.error(`uws baseline: cannot listen on ${port}`);
      process.exit(1);
    }
  });
}

/** The part of Fastify's API used here (its types live in bench/fastify's install, not the root's). */
interface FastifyModule {
  default: (opts: { logger: boolean }) => {
    get(path: string, handler: (req: unknown, reply: { headers(h: Record<string, string>): { send(body: Buffer): void } }) => void): void;
    listen(opts: { host: string; port: number }): Promise<string>;
  };
}

async function serveFastify(routes: Map<string, Route>, port: number): Promise<void> {
  const { default: Fastify } = await importBenchPackage<FastifyModule>('fastify', 'fastify');
  const app = Fastify({ logger: false });
  for (const [path, r] of routes) {
    app.get(path, (_req, reply) => {
      reply.headers(r.headerObject).send(r.body);
    });
  }
  await app.listen({ host: '127.0.0.1', port });
}

function serveNodeHttp(routes: Map<string, Route>, port: number): void {
  const server = createServer((req, res) => {
    const r = routes.get(req.url ?? '');
    if (!r) {
      res.writeHead(404, { 'Content-Length': '0' }).end();
      return;
    }
    // writeHead builds the head at once, so Content-Length must be given (else chunked).
    res.writeHead(200, { ...r.headerObject, 'Content-Length': String(r.body.length) });
    res.end(r.body);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1');
}

const [kind, portArg, specPath] = process.argv.slice(2);
const port = Number(portArg);
if (!specPath || !Number.isInteger(port)) {
  console.error('usage: baselineServer.js <uws|fastify|node-http> <port> <spec.json>');
  process.exit(2);
}
const routes = loadRoutes(specPath);
if (kind === 'uws') serveUws(routes, port);
else if (kind === 'fastify') await serveFastify(routes, port);
else if (kind === 'node-http') serveNodeHttp(routes, port);
else {
  console.error(`unknown baseline "${kind}"`);
  process.exit(2);
}
process.on('SIGTERM', () => process.exit(0));

// The uWebSockets.js listener: the only module that touches uWS request/response objects.
// This first cut answers /health and a JSON 404; the API routes plug in through `routes`.
import uWS from 'uWebSockets.js';
import type { Common } from '../common/common.js';
import { VaultdError } from '../common/errors.js';
import { VERSION } from '../common/version.js';

export interface HttpServer {
  readonly port: number;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export async function startHttpServer(common: Common, opts: { host: string; port: number }): Promise<HttpServer> {
  const started = Date.now();
  const app = uWS.App();

  app.get('/health', (res) => {
    const body = JSON.stringify({ status: 'ok', version: VERSION, uptime_seconds: Math.floor((Date.now() - started) / 1000) });
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', JSON_TYPE).writeHeader('Cache-Control', 'no-store').end(body);
    });
  });
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const allowed = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    const [status, code, message] = allowed
      ? ['404 Not Found', 'NOT_FOUND', `no route for "${req.getUrl()}"`]
      : ['405 Method Not Allowed', 'METHOD_NOT_ALLOWED', `method ${method} is not allowed; this API is read-only (GET, HEAD, OPTIONS)`];
    res.cork(() => {
      res.writeStatus(status).writeHeader('Content-Type', JSON_TYPE).end(JSON.stringify({ error: { code, message } }));
    });
  });

  const socket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen(opts.host, opts.port, (token) => {
      if (token) resolve(token);
      else reject(new VaultdError('USAGE', `cannot listen on ${opts.host}:${opts.port}; is the port in use? pass another --port`));
    });
  });
  const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
  common.logger.info({ host: opts.host, port }, 'listening');
  return {
    port,
    async close() {
      uWS.us_listen_socket_close(socket);
    },
  };
}

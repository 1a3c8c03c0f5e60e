// The request pipeline (DESIGN §5, STYLE 17): a chain of small steps, each in its own folder
// under server/middleware/ — fresh keys → request id and CORS (the exchange) → auth → rate limit
// → target length → preflight → method → static files → route — and the responder
// (server/respond.ts) that every answer goes through. Synchronous and free of uWS:
// server/httpServer.ts copies the request in and writes the Reply.
import type { Common } from '../common/common.js';
import { VaultdError } from '../common/errors.js';
import type { ReadModel } from '../engine/publish/index.js';
import type { AuthTable } from './auth.js';
import type { CursorCodec } from './cursor.js';
import { ANONYMOUS, type Exchange, type IncomingRequest, type Step } from './exchange.js';
import { createAuthStep, METRICS_PATH } from './middleware/auth/index.js';
import { createLimit } from './middleware/limit/index.js';
import { methodStep } from './middleware/method/index.js';
import { createPreflightStep } from './middleware/preflight/index.js';
import { createRouteStep } from './middleware/route/index.js';
import { createStaticStep } from './middleware/static/index.js';
import { createTargetLengthStep } from './middleware/targetLength/index.js';
import type { Reply } from './reply.js';
import { requestIdFrom } from './requestId.js';
import { createResponder, type PageWire } from './respond.js';
import { createSloMonitor, registerSloMetrics } from './sloMonitor.js';
import type { StaticAssets } from './static/staticAssets.js';

export type { IncomingRequest } from './exchange.js';
export { MAX_TARGET } from './exchange.js';
export type { PageWire } from './respond.js';

export interface HandlerDeps {
  common: Common;
  /** the newest published read model, null before the first publish */
  current: () => ReadModel | null;
  /** whether scheduled jobs publish new snapshots (else /health never turns degraded) */
  jobs: boolean;
  auth: () => AuthTable;
  /**
   * When the key table may be stale (the database changed since it was read), a promise that
   * settles once it is re-read; null when it is current. Requests carrying a credential wait
   * for it, so a key works the moment `vaultd keys create` returns and a revoked one stops.
   */
  keysReloading?: () => Promise<void> | null;
  cursors: CursorCodec;
  /**
   * Kept generations (readers): the snapshot of the generation a cursor names, so a paged
   * walk stays on one generation (server/generations.ts); absent = always the newest.
   */
  generation?: (g: number) => ReadModel | null | Promise<ReadModel | null>;
  /** seconds until the next scheduled publish, or null when no schedule runs */
  secondsToNextPublish: () => number | null;
  started: number;
  /** prebuilt files (the client SDK under /client/); none when absent */
  assets?: StaticAssets;
  /** each page's wire form (a test may pass its own map to look at what was made) */
  wires?: WeakMap<object, PageWire>;
}

/** performance.now() + this = milliseconds since the epoch (monotonic: a clock step does not move it). */
const TIME_ORIGIN = performance.timeOrigin;

export function createHandler(deps: HandlerDeps) {
  // One clock read per request: the rate limiter and the Cache-Control second use the request's
  // start (Date.now() is a system call on some VMs, ~0.3 µs here; performance.now() is not).
  const clock = { ms: 0 };
  const slo = createSloMonitor({
    objectives: deps.common.config.slo,
    chainHeads: () => deps.current()?.chainHeads() ?? [],
    publishedAt: () => deps.current()?.refreshedAtS ?? null,
  });
  registerSloMetrics(deps.common.metrics, slo);
  const respond = createResponder({ common: deps.common, secondsToNextPublish: deps.secondsToNextPublish, slo, ...(deps.wires ? { wires: deps.wires } : {}) });
  const limit = createLimit(deps.common, clock);
  const steps: readonly Step[] = [
    createAuthStep({ auth: deps.auth, anonymous: deps.common.config.auth.anonymous, metricsPublic: deps.common.config.server.metrics_public }),
    limit.step,
    createTargetLengthStep(limit.chargeJunk),
    createPreflightStep(respond),
    methodStep,
    createStaticStep(deps.assets, respond),
    createRouteStep({ ...deps, slo, respond, chargeJunk: limit.chargeJunk }),
  ];

  const keyedMetrics = deps.common.config.server.metrics_public === false;
  return function handle(req: IncomingRequest, keysChecked = false): Reply | Promise<Reply> {
    // fresh keys: a request with a credential waits for a key table the database has outdated
    if (
      !keysChecked &&
      req.method !== 'OPTIONS' &&
      (req.authorization || req.apiKey) &&
      (req.path === '/v1' || req.path.startsWith('/v1/') || (keyedMetrics && req.path === METRICS_PATH))
    ) {
      const reloading = deps.keysReloading?.();
      if (reloading)
        return reloading.then(
          () => handle(req, true),
          () => handle(req, true),
        );
    }
    // request id and CORS headers, on every answer
    const t0 = performance.now();
    clock.ms = TIME_ORIGIN + t0;
    const x: Exchange = {
      req,
      t0,
      clock: clock.ms,
      requestId: requestIdFrom(req.requestId || undefined),
      isV1: req.path === '/v1' || req.path.startsWith('/v1/'),
      preflight: req.method === 'OPTIONS',
      who: ANONYMOUS,
      route: null,
      rateLimit: 0,
      rateRemaining: 0,
      rateReset: 0,
      retryAfter: 0,
    };
    try {
      for (const step of steps) {
        const out = step(x);
        if (out !== undefined) return out;
      }
      // the last step always answers
      throw new VaultdError('INTERNAL', 'the request pipeline ended without an answer');
    } catch (err) {
      return respond.caught(x, err);
    }
  };
}

// /health, /health/chains, /metrics, /openapi.json (no credential needed, DESIGN §5.5).
import { VERSION } from '../../common/version.js';
import type { Body } from '../reply.js';
import { buildOpenApi } from '../openapi.js';
import type { ReadModel } from '../../engine/publish/index.js';
import type { RouteContext } from './context.js';

const json = (value: unknown, status?: number): Body => ({
  kind: 'raw',
  body: Buffer.from(JSON.stringify(value)),
  contentType: 'application/json; charset=utf-8',
  cache: 'no-store',
  ...(status === undefined ? {} : { status }),
});

/** A snapshot older than this while jobs run makes /health "degraded". */
export const FRESHNESS_BUDGET_SECONDS = 2 * 3600;

/**
 * `degraded` when no snapshot is published yet, or, while jobs run, the snapshot is older than
 * FRESHNESS_BUDGET_SECONDS or a configured chain is stalled or never synced (named in
 * `stalled_chains`). With no snapshot every /v1 route answers 503, and so does /health: a load
 * balancer sends its traffic elsewhere. A stale or stalled server still serves (200).
 */
export function health(ctx: RouteContext): Body {
  const now = Date.now() / 1000;
  const model = ctx.model;
  const stale = model !== null && ctx.jobs && now - model.refreshedAtS > FRESHNESS_BUDGET_SECONDS;
  // while jobs run, a chain that is stalled or never synced degrades the server, by name
  const stalled =
    model && ctx.jobs
      ? chainHealth(model)
          .filter((c) => c.freshness === 'stalled')
          .map((c) => c.chain_id)
      : [];
  return json(
    {
      status: model === null || stale || stalled.length > 0 ? 'degraded' : 'ok',
      version: VERSION,
      uptime_seconds: Math.floor(now - ctx.started / 1000),
      ...(stalled.length > 0 ? { stalled_chains: stalled } : {}),
    },
    model === null ? 503 : undefined,
  );
}

/** The service level objectives beside the live figures (DESIGN §11.9). */
export function healthSlo(ctx: RouteContext): Body {
  return json(ctx.slo.report());
}

/** Freshness of each chain with an enabled vault, from the newest indexed snapshot. */
export function healthChains(ctx: RouteContext): Body {
  return json(ctx.model ? chainHealth(ctx.model) : []);
}

function chainHealth(model: ReadModel) {
  const now = Math.floor(Date.now() / 1000);
  return model.chainHeads().map((c) => {
    // lag counts from the first block read, never from 1970
    const lag = c.latest_timestamp === null ? null : Math.max(0, now - c.latest_timestamp);
    return {
      chain_id: c.chain_id,
      latest_block: c.latest_block,
      latest_timestamp: c.latest_timestamp,
      lag_seconds: lag,
      freshness: c.stalled || lag === null ? 'stalled' : lag <= 2 * 3600 ? 'fresh' : lag <= 24 * 3600 ? 'lagging' : 'stalled',
    };
  });
}

export function metrics(ctx: RouteContext): Body {
  // prom-client's registry renders asynchronously; this is the one deferred route.
  return {
    kind: 'deferred',
    load: async () => ({ kind: 'raw', body: Buffer.from(await ctx.common.metrics.metrics()), contentType: ctx.common.metrics.contentType, cache: 'no-store' }),
  };
}

let openapiBody: Buffer | null = null;
export function openapi(): Body {
  openapiBody ??= Buffer.from(JSON.stringify(buildOpenApi()));
  return { kind: 'raw', body: openapiBody, contentType: 'application/json; charset=utf-8', cache: 'public' };
}

export function docs(): Body {
  const html = `<!doctype html><meta charset="utf-8"><title>vaultd API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style>
<h1>vaultd API 1.0.0</h1><p>Machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p><ul id="ops"></ul>
<script>fetch('/openapi.json').then(r=>r.json()).then(d=>{const ul=document.getElementById('ops');for(const[p,ops]of Object.entries(d.paths))for(const[m,o]of Object.entries(ops)){const li=document.createElement('li');li.innerHTML='<code>'+m.toUpperCase()+' '+p+'</code> — '+(o.summary||'');ul.appendChild(li)}})</script>`;
  return { kind: 'raw', body: Buffer.from(html), contentType: 'text/html; charset=utf-8', cache: 'public' };
}

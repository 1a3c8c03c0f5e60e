// static files: the client SDK, the explorer and its pages (none under /v1 unless mounted there).
import { EVERY_ANSWER, type Step } from '../../exchange.js';
import { headerLines } from '../../reply.js';
import type { Responder } from '../../respond.js';
import type { StaticAssets } from '../../static/staticAssets.js';

export function createStaticStep(assets: StaticAssets | undefined, respond: Responder): Step {
  const underV1 = assets?.servesUnder('/v1') ?? false;
  return (x) => {
    if (!assets || (x.isV1 && !underV1)) return;
    const asset = assets.answer(x.req);
    return asset ? respond.reply(x, asset.status, headerLines([...EVERY_ANSWER, ...asset.headers]), null, null, asset.parts) : undefined;
  };
}

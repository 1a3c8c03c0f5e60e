// Content-coding negotiation (DESIGN §5.6, RFC 9110 §12.5.3): pick which precompressed
// variant of a page to send from the client's Accept-Encoding.

export type Encoding = 'br' | 'gzip' | 'identity';

// Below any q a client can send (q has at most 3 decimals): identity, when only implicitly
// acceptable, wins only if nothing else is acceptable.
const IMPLICIT_IDENTITY = 0.0001;
const NOT_LISTED = -1;

/**
 * The best encoding for `acceptEncoding`: the highest q among br, gzip and identity, ties
 * broken br > gzip > identity. q=0 refuses a coding; `*` stands for codings not listed;
 * `x-gzip` is gzip; tokens are case-insensitive; an entry with a malformed q is ignored.
 * Identity is acceptable unless refused (`identity;q=0`, or `*;q=0` without an identity
 * entry); when everything is refused we still answer identity rather than 406 (RFC allows).
 */
export function chooseEncoding(acceptEncoding: string | undefined, brOffered = true): Encoding {
  if (!acceptEncoding) return 'identity';
  let br = NOT_LISTED;
  let gzip = NOT_LISTED;
  let identity = NOT_LISTED;
  let star = NOT_LISTED;
  for (const entry of acceptEncoding.split(',')) {
    const semi = entry.indexOf(';');
    const coding = (semi < 0 ? entry : entry.slice(0, semi)).trim().toLowerCase();
    if (coding === '') continue;
    const q = semi < 0 ? 1 : qOf(entry.slice(semi + 1));
    if (q < 0) continue;
    // A coding listed twice keeps its lowest q: a refusal is never overridden.
    if (coding === 'br') br = lower(br, q);
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = lower(gzip, q);
    else if (coding === 'identity') identity = lower(identity, q);
    else if (coding === '*') star = lower(star, q);
  }
  // a body with no brotli variant (a timeseries window) is chosen among gzip and identity
  const qBr = !brOffered ? 0 : br !== NOT_LISTED ? br : star !== NOT_LISTED ? star : 0;
  const qGzip = gzip !== NOT_LISTED ? gzip : star !== NOT_LISTED ? star : 0;
  const qIdentity = identity !== NOT_LISTED ? identity : star !== NOT_LISTED ? star : IMPLICIT_IDENTITY;
  if (qBr > 0 && qBr >= qGzip && qBr >= qIdentity) return 'br';
  if (qGzip > 0 && qGzip >= qIdentity) return 'gzip';
  return 'identity';
}

function lower(current: number, q: number): number {
  return current === NOT_LISTED ? q : Math.min(current, q);
}

const Q_VALUE = /^(?:0(?:\.\d*)?|1(?:\.0*)?|\.\d+)$/;

/** The q of an entry's parameters (`q=0.5;x=y`…); 1 when absent, −1 when malformed. */
function qOf(params: string): number {
  for (const param of params.split(';')) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const value = param.slice(eq + 1).trim();
    return Q_VALUE.test(value) ? Number(value) : NOT_LISTED;
  }
  return 1;
}

/** Distinct Accept-Encoding values remembered by a chooser (cleared when full). */
const CHOOSER_ENTRIES = 512;

export type EncodingChooser = (acceptEncoding: string, brOffered: boolean) => Encoding;

/**
 * chooseEncoding with its answers remembered per header value: clients send a handful of
 * distinct values, so the request path is a map lookup instead of a parse. Junk values cannot
 * buy memory: the map is cleared when full.
 */
export function createEncodingChooser(): EncodingChooser {
  const withBr = new Map<string, Encoding>();
  const withoutBr = new Map<string, Encoding>();
  return (acceptEncoding, brOffered) => {
    if (acceptEncoding === '') return 'identity';
    const memo = brOffered ? withBr : withoutBr;
    let e = memo.get(acceptEncoding);
    if (e === undefined) {
      e = chooseEncoding(acceptEncoding, brOffered);
      if (memo.size >= CHOOSER_ENTRIES) memo.clear();
      memo.set(acceptEncoding, e);
    }
    return e;
  };
}

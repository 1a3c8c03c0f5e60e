// A bench client process: `count` WebSockets to ws://127.0.0.1:port/path over raw TCP (a
// handshake and an unmasked-frame reader: no WebSocket objects, so thousands fit in one
// process on the other core), each subscribing to `topic`. Reports over IPC when all are
// subscribed, then for each round the receipt time (ms since the epoch, sub-ms) of every
// connection's last frame of the round (a frame holding `"last":true,"seq":k`). A topic with a
// `%` (e.g. `vault:%`) gives each connection its own of `spread` topics: `%` becomes
// (base + its index) mod spread, so connections over all processes cover the topics evenly.
import net from 'node:net';

const [port, count, path, topic] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4] ?? '/v1/stream', process.argv[5] ?? 'tvl'];
const [base, spread] = [Number(process.argv[6] ?? 0), Number(process.argv[7] ?? 1)];
const now = () => performance.timeOrigin + performance.now();
const HANDSHAKE = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;
const subscribeFrame = (i: number) => maskedText(JSON.stringify({ op: 'subscribe', topics: [topic.replace('%', String((base + i) % spread))] }));
const LAST = Buffer.from('"last":true,"seq":');

let subscribed = 0;
const rounds = new Map<number, number[]>();

function maskedText(text: string): Buffer {
  const p = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x81, 0x80 | p.length]), Buffer.alloc(4), p]);
}

function connect(index: number, attempt = 0): void {
  const s = net.connect(port, '127.0.0.1');
  let upgraded = false;
  let counted = false;
  let buf: Buffer = Buffer.alloc(0);
  s.setNoDelay(true);
  s.on('connect', () => s.write(HANDSHAKE));
  s.on('error', (err) => {
    // at 10,000 connections the server's accept queue can overflow: a refused or reset
    // connection that never subscribed tries again (else the round would wait for it forever)
    if (!counted && attempt < 10) setTimeout(() => connect(index, attempt + 1), 100 * (attempt + 1));
    else process.send?.({ type: 'error', message: String(err) });
  });
  s.on('data', (d: Buffer) => {
    buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      upgraded = true;
      buf = buf.subarray(end + 4);
      s.write(subscribeFrame(index));
    }
    for (;;) {
      if (buf.length < 2) return;
      let len = buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        at = 10;
      }
      if (buf.length < at + len) return;
      const payload = buf.subarray(at, at + len);
      buf = buf.subarray(at + len);
      if (payload.indexOf('"op":"subscribed"') >= 0 && !counted) {
        counted = true;
        if (++subscribed === count) process.send?.({ type: 'ready' });
      }
      const i = payload.indexOf(LAST);
      if (i >= 0) {
        const t = now();
        const seq = Number.parseInt(payload.subarray(i + LAST.length, i + LAST.length + 12).toString(), 10);
        let times = rounds.get(seq);
        if (!times) rounds.set(seq, (times = []));
        times.push(t);
        if (times.length === count) {
          process.send?.({ type: 'round', seq, times });
          rounds.delete(seq);
        }
      }
    }
  });
}

// connections opened in small waves (the server's accept queue)
let opened = 0;
const wave = () => {
  for (let i = 0; i < 100 && opened < count; i++, opened++) connect(opened);
  if (opened < count) setTimeout(wave, 10);
};
wave();
process.on('message', (m: { type: string }) => {
  if (m.type === 'exit') process.exit(0);
});

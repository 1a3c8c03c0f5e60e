import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStaticAssets } from './staticAssets.js';

const dir = join(tmpdir(), `vaultd-static-${process.pid}`);
mkdirSync(join(dir, 'nested'), { recursive: true });
const big = `export const x = ${JSON.stringify('a'.repeat(4000))};\n`;
writeFileSync(join(dir, 'small.js'), 'export const y = 1;\n');
writeFileSync(join(dir, 'big.js'), big);
writeFileSync(join(dir, 'big.js.map'), '{"version":3}');
writeFileSync(join(dir, 'nested', 'deep.mjs'), 'export {};\n');
writeFileSync(join(dir, 'unknown.bin'), 'x');
writeFileSync(join(dir, 'skip.test.js'), 'x');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const req = (path: string, acceptEncoding = '', ifNoneMatch = '') => ({ path, acceptEncoding, ifNoneMatch });

describe('static assets', () => {
  const assets = loadStaticAssets([{ mount: '/client/', dir, exclude: /\.test\.js$/ }]);

  it('serves the files of known types under the mount, nothing else', () => {
    expect(assets.paths).toEqual(['/client/big.js', '/client/big.js.map', '/client/nested/deep.mjs', '/client/small.js']);
    expect(assets.answer(req('/client/unknown.bin'))).toBeNull();
    expect(assets.answer(req('/client/../package.json'))).toBeNull();
    expect(assets.answer(req('/small.js'))).toBeNull();
  });

  it('Content-Type, ETag and Cache-Control; no variants for 1 KiB or less', () => {
    const a = assets.answer(req('/client/small.js', 'br, gzip'))!;
    expect(a.status).toBe(200);
    expect(Object.fromEntries(a.headers)).toEqual({
      'Content-Type': 'text/javascript; charset=utf-8',
      ETag: expect.stringMatching(/^"[\w-]{27}"$/),
      'Cache-Control': 'public, no-cache',
    });
    expect(Buffer.concat(a.parts).toString()).toBe('export const y = 1;\n');
    expect(Object.fromEntries(assets.answer(req('/client/big.js.map'))!.headers)['Content-Type']).toBe('application/json; charset=utf-8');
  });

  it('bodies over 1 KiB: brotli or gzip by Accept-Encoding, identity otherwise', () => {
    const br = assets.answer(req('/client/big.js', 'gzip, br'))!;
    expect(Object.fromEntries(br.headers)).toMatchObject({ 'Content-Encoding': 'br', Vary: 'Accept-Encoding' });
    expect(brotliDecompressSync(br.parts[0]!).toString()).toBe(big);
    expect(br.parts[0]!.length).toBeLessThan(200);
    const gz = assets.answer(req('/client/big.js', 'gzip'))!;
    expect(Object.fromEntries(gz.headers)['Content-Encoding']).toBe('gzip');
    expect(gunzipSync(gz.parts[0]!).toString()).toBe(big);
    const plain = assets.answer(req('/client/big.js'))!;
    expect(Object.fromEntries(plain.headers)['Content-Encoding']).toBeUndefined();
    expect(plain.parts[0]!.toString()).toBe(big);
  });

  it('If-None-Match with the ETag answers 304 without a body', () => {
    const etag = assets.get('/client/big.js')!.etag;
    const a = assets.answer(req('/client/big.js', 'br', `"other", W/${etag}`))!;
    expect(a).toEqual({
      status: 304,
      headers: [
        ['ETag', etag],
        ['Cache-Control', 'public, no-cache'],
        ['Vary', 'Accept-Encoding'],
      ],
      parts: [],
    });
  });

  it('a missing folder serves nothing; error: a mount without slashes', () => {
    expect(loadStaticAssets([{ mount: '/x/', dir: join(dir, 'absent') }]).paths).toEqual([]);
    expect(() => loadStaticAssets([{ mount: '/client', dir }])).toThrow('static mount "/client" must start and end with "/"');
  });
});

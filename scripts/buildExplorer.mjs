// Part of `npm run build` (after tsc): the explorer pages into dist/explorer/ — one bundled
// script (explorer/app.ts + the client SDK + uPlot, by esbuild, no CDN), one stylesheet, and
// the HTML of `/`, `/vaults/{id}`, `/wallets/{address}` and `/docs`; the reference in /docs is
// generated here from the OpenAPI document the server serves (dist/server/openapi.js), with a
// schema-checked example body per route. No inline script or style: the pages run under
// `Content-Security-Policy: default-src 'self'`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const out = join(root, 'dist', 'explorer');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(root, 'explorer', 'app.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
  legalComments: 'none',
});
writeFileSync(
  join(out, 'app.css'),
  readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8') + '\n' + readFileSync(join(root, 'explorer', 'style.css'), 'utf8'),
);

writeFileSync(
  join(out, 'icon.svg'),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2563eb"/><path d="M4 4l4 8 4-8" stroke="#fff" stroke-width="2" fill="none"/></svg>\n',
);

/** A parameter object, following a `$ref` into components.parameters. */
const param = (doc, p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').at(-1)] : p);

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function page(name, title, body) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · vaultd</title>
<link rel="icon" href="/explorer/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/explorer/app.css">
<script type="module" src="/explorer/app.js"></script>
</head>
<body data-page="${name}">
<header>
<a class="brand" href="/">vaultd</a>
<nav><a href="/">Vaults</a> <a href="/docs">API reference</a></nav>
<form id="key-form"><input id="api-key" type="password" placeholder="API key (optional)" aria-label="API key" autocomplete="off"><button>Use key</button></form>
</header>
<main id="main">${body}</main>
</body>
</html>
`;
}

const loading = '<p class="loading">Loading…</p>';
writeFileSync(join(out, 'index.html'), page('vaults', 'Vaults', loading));
writeFileSync(join(out, 'vault.html'), page('vault', 'Vault', loading));
writeFileSync(join(out, 'wallet.html'), page('wallet', 'Wallet', loading));

// ---- /docs: the reference ----
const { buildOpenApi } = await import(pathToFileURL(join(root, 'dist', 'server', 'openapi.js')).href);
const { SAMPLE_BODIES } = await import(pathToFileURL(join(root, 'dist', 'server', 'schemas', 'sampleBodies.js')).href);
const doc = buildOpenApi();
const examples = await captureExamples(doc).catch((err) => {
  process.stderr.write(`build: demo-world examples unavailable (${err.message}); /docs shows the schema samples\n`);
  return {};
});

/**
 * One real answer per GET route, from `vaultd serve` on a small fixed demo world (seed 7,
 * now 2026-06-01): the example bodies of /docs. Lists are asked for 2 rows.
 */
async function captureExamples(doc) {
  const dir = mkdtempSync(join(tmpdir(), 'vaultd-docs-examples-'));
  const bin = join(root, 'bin', 'vaultd.js');
  const env = { ...process.env, VAULTD_LOG_LEVEL: 'info' };
  const db = join(dir, 'docs.duckdb');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ rate_limits: { anonymous_per_minute: 1000000 } }));
  let child = null;
  try {
    const made = spawnSync(process.execPath, [bin, 'demo', '--db', db, '--seed', '7', '--now', '2026-06-01T00:00:00Z', '--days', '60', '--wallets', '40'], {
      env: { ...env, VAULTD_LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    if (made.status !== 0) throw new Error(`demo failed: ${made.stderr.trim()}`);
    const wallet = spawnSync(process.execPath, [bin, 'wallets', '--db', db, '--limit', '1'], {
      env: { ...env, VAULTD_LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    }).stdout.trim();
    child = spawn(process.execPath, [bin, 'serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs', '--config', config], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const port = await new Promise((resolve, reject) => {
      let log = '';
      const timer = setTimeout(() => reject(new Error('the demo server did not start in 60 s')), 60_000);
      child.stderr.on('data', (d) => {
        log += d;
        const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.once('exit', (code) => reject(new Error(`the demo server exited with ${code}`)));
    });
    const get = async (path) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      if (res.status !== 200) throw new Error(`${path} → ${res.status}`);
      return res.json();
    };
    const vaults = (await get('/v1/vaults?limit=1000')).data;
    const vault = vaults.find((v) => v.group && v.metrics.tvl.usd !== null) ?? vaults[0];
    const position = (await get(`/v1/users/${wallet}/positions?limit=1`)).data[0];
    const values = {
      vault_id: vault.vault_id,
      slug: vault.group?.slug ?? '',
      wallet_address: wallet,
      chain_id: String(vault.chain_id),
      address: vault.numeraire_token.address,
      start: '2026-05-29',
      end: '2026-05-31',
      granularity: 'day',
      limit: '2',
    };
    const out = {};
    for (const [path, ops] of Object.entries(doc.paths)) {
      const op = ops.get;
      if (!op || (!path.startsWith('/v1/') && !path.startsWith('/health'))) continue;
      let url = path;
      const query = new URLSearchParams();
      for (const p of (op.parameters ?? []).map((x) => param(doc, x))) {
        const v = p.name === 'vault_id' && path.startsWith('/v1/users/') ? position?.vault_id : values[p.name];
        if (p.in === 'path') url = url.replace(`{${p.name}}`, v ?? '');
        else if (v !== undefined && (p.required || ['limit', 'granularity'].includes(p.name))) query.set(p.name, v);
      }
      const target = `${url}${query.size ? `?${query}` : ''}`;
      try {
        const body = await get(target);
        if (body?.meta?.request_id) body.meta.request_id = 'example';
        out[op.operationId] = { target, body };
      } catch (err) {
        process.stderr.write(`build: no demo-world example for ${target} (${err.message}); its schema sample stands in\n`);
      }
    }
    return out;
  } finally {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

function typeOf(schema) {
  if (!schema) return '';
  if (schema.$ref) return schema.$ref.split('/').at(-1);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.anyOf || schema.oneOf) return (schema.anyOf ?? schema.oneOf).map(typeOf).join(' | ');
  const t = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? '');
  const limits = [];
  if (schema.minimum !== undefined) limits.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) limits.push(`≤ ${schema.maximum}`);
  if (schema.pattern) limits.push(`pattern ${schema.pattern}`);
  return `${t}${limits.length ? ` (${limits.join(', ')})` : ''}`;
}

const sections = [];
const toc = [];
for (const [path, ops] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(ops)) {
    const id = op.operationId ?? `${method}-${path}`;
    toc.push(`<li><a href="#${esc(id)}"><code>${method.toUpperCase()} ${esc(path)}</code></a> ${esc(op.summary ?? '')}</li>`);
    const params = (op.parameters ?? []).map((x) => param(doc, x));
    const rows = params
      .map(
        (p) =>
          `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'required' : 'optional'}</td><td>${esc(typeOf(p.schema))}</td><td>${p.schema?.default !== undefined ? `<code>${esc(JSON.stringify(p.schema.default))}</code>` : ''}</td><td>${esc(p.description ?? p.schema?.description ?? '')}</td></tr>`,
      )
      .join('');
    const errors = Object.entries(op.responses)
      .filter(([s]) => Number(s) >= 400)
      .map(([s, r]) => `<li><code>${s}</code> ${esc(r.description ?? '')}</li>`)
      .join('');
    const live = examples[id];
    const example = live ? live.body : SAMPLE_BODIES[id];
    const exampleTitle = live ? `Example response: <code>GET ${esc(live.target)}</code> on the demo world` : 'Example response';
    const inputs = params
      .map(
        (p) =>
          `<label>${esc(p.name)} <input name="${esc(p.name)}" data-in="${esc(p.in)}"${p.required ? ' required' : ''} placeholder="${esc(typeOf(p.schema))}"></label>`,
      )
      .join(' ');
    sections.push(`<section class="op" id="${esc(id)}" data-path="${esc(path)}">
<h2><code>${method.toUpperCase()} ${esc(path)}</code></h2>
<p>${esc(op.description ?? op.summary ?? '')}</p>
${params.length ? `<table><thead><tr><th>parameter</th><th>in</th><th></th><th>type and limits</th><th>default</th><th>description</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No parameters.</p>'}
${errors ? `<h3>Errors</h3><ul>${errors}</ul>` : ''}
${example !== undefined ? `<h3 class="example-title">${exampleTitle}</h3><pre class="example">${esc(JSON.stringify(example, null, 2))}</pre>` : ''}
<form class="try" data-path="${esc(path)}"><h3>Try it</h3>${inputs}<button>Send</button><output></output></form>
</section>`);
  }
}
writeFileSync(
  join(out, 'docs.html'),
  page(
    'docs',
    'API reference',
    `<h1>${esc(doc.info.title)} ${esc(doc.info.version)}</h1>
<p>Every route of <a href="/openapi.json">/openapi.json</a> (OpenAPI ${esc(doc.openapi)}). "Try it" calls this server, with the API key above when one is set.</p>
<ul id="operations">${toc.join('\n')}</ul>
${sections.join('\n')}`,
  ),
);
process.stderr.write(`build: dist/explorer (${toc.length} operations in /docs, ${Object.keys(examples).length} examples from the demo world)\n`);

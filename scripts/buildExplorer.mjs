// Part of `npm run build` (after tsc): the explorer pages into dist/explorer/ — the entry
// script app.js with one chunk per page and shared chunks (explorer/*.ts + the client SDK +
// uPlot, by esbuild, no CDN), one stylesheet, and the HTML of `/`, `/vaults/{id}`,
// `/wallets/{address}` and `/docs`, each preloading its own chunks; the reference in /docs is
// generated here from the OpenAPI document the server serves (dist/server/openapi.js), its
// Markdown rendered by explorer/markdown.ts, with an example answer per route and "try it"
// fields pre-filled from a demo world. No inline script or style: the pages run under
// `Content-Security-Policy: default-src 'self'`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const out = join(root, 'dist', 'explorer');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// One entry (app.js) that loads its page's module on demand: shared code and uPlot land in
// chunks, so the list page never downloads the chart library and /docs only its forms.
const bundle = await build({
  entryPoints: [join(root, 'explorer', 'app.ts')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  outdir: out,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
});

/** URL paths of the chunks a page needs at once: app.js's static imports and its page module's closure. */
function preloads(pageModule) {
  const outputs = bundle.metafile.outputs;
  const closure = (file, seen) => {
    for (const i of outputs[file]?.imports ?? []) {
      if (i.kind === 'import-statement' && !seen.has(i.path)) {
        seen.add(i.path);
        closure(i.path, seen);
      }
    }
    return seen;
  };
  const app = Object.keys(outputs).find((f) => outputs[f].entryPoint === 'explorer/app.ts');
  const page = Object.keys(outputs).find((f) => outputs[f].entryPoint === `explorer/pages/${pageModule}.ts`);
  if (!app || !page) throw new Error(`build: no output for explorer/pages/${pageModule}.ts`);
  const files = new Set([page]);
  closure(app, files);
  closure(page, files);
  return [...files].map((f) => `/explorer/${relative(out, join(root, f)).split(sep).join('/')}`).sort();
}

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

const PAGE_MODULE = { vaults: 'home', vault: 'vault', wallet: 'wallet', docs: 'docs', status: 'status' };

function page(name, title, body) {
  const links = preloads(PAGE_MODULE[name])
    .map((href) => `<link rel="modulepreload" href="${href}">`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · vaultd</title>
<link rel="icon" href="/explorer/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/explorer/app.css">
<script type="module" src="/explorer/app.js"></script>
${links}
</head>
<body data-page="${name}">
<a class="skip" href="#main">Skip to content</a>
<header>
<a class="brand" href="/">vaultd</a>
<nav aria-label="Pages"><a href="/">Vaults</a> <a href="/docs">API reference</a> <a href="/status">Status</a></nav>
<form id="key-form"><input id="api-key" type="password" placeholder="API key (optional)" aria-label="API key" autocomplete="off"><button>Use key</button></form>
</header>
<main id="main" tabindex="-1">${body}</main>
</body>
</html>
`;
}

const loading = '<p class="loading">Loading…</p>';
writeFileSync(join(out, 'index.html'), page('vaults', 'Vaults', loading));
writeFileSync(join(out, 'vault.html'), page('vault', 'Vault', loading));
writeFileSync(join(out, 'wallet.html'), page('wallet', 'Wallet', loading));
writeFileSync(join(out, 'status.html'), page('status', 'Service level', loading));

// ---- /docs: the reference ----
// the Markdown of descriptions, by the explorer's own renderer (TypeScript, compiled here)
const markdownJs = await build({
  entryPoints: [join(root, 'explorer', 'markdown.ts')],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  logLevel: 'warning',
});
const { renderMarkdown, renderInline } = await import(`data:text/javascript;base64,${Buffer.from(markdownJs.outputFiles[0].text).toString('base64')}`);
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
      // what the "try it" form starts with: the values this example was asked with
      const prefill = {};
      for (const p of (op.parameters ?? []).map((x) => param(doc, x))) {
        const v = p.in === 'path' ? decodeURIComponent(url.split('/').find((_, i) => path.split('/')[i] === `{${p.name}}`) ?? '') : query.get(p.name);
        if (v) prefill[p.name] = v;
      }
      try {
        const body = await get(target);
        if (body?.meta?.request_id) body.meta.request_id = 'example';
        out[op.operationId] = { target, body, prefill };
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

/** A parameter's type and limits for people: "integer, 1 to 1000", "one of asc, desc", "boolean". */
function typeOf(schema) {
  if (!schema) return '';
  if (schema.$ref) return esc(schema.$ref.split('/').at(-1));
  if (schema.enum) return `one of ${schema.enum.map((v) => `<code>${esc(v)}</code>`).join(', ')}`;
  if (schema.anyOf || schema.oneOf) return (schema.anyOf ?? schema.oneOf).map(typeOf).join(' or ');
  const t = esc(Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? ''));
  if (schema.minimum !== undefined && schema.maximum !== undefined) return `${t}, ${schema.minimum} to ${schema.maximum}`;
  if (schema.minimum !== undefined) return `${t}, at least ${schema.minimum}`;
  if (schema.maximum !== undefined) return `${t}, at most ${schema.maximum}`;
  // a pattern is for machines: its words are in the description, the regex in a title
  if (schema.pattern) return `<span title="pattern ${esc(schema.pattern)}">${t}, see the pattern</span>`;
  return t;
}

/** A placeholder that says what to type: an example value, the default, or the date format. */
function placeholderOf(p) {
  const s = p.schema ?? {};
  if (s.examples?.length) return String(s.examples[0]);
  if (s.default !== undefined) return `default ${s.default}`;
  if (/ISO 8601/.test(s.description ?? '')) return '2026-01-31 or 2026-01-31T12:00:00Z';
  if (/^\^0x\[0-9a-fA-F\]\{40\}\$$/.test(s.pattern ?? '')) return '0x… (40 hex digits)';
  return '';
}

/** The "try it" control of a parameter: a select for enums, a checkbox for booleans, else an input; pre-filled from the demo world. */
function control(p, prefill) {
  const s = p.schema ?? {};
  const name = esc(p.name);
  const value = prefill[p.name];
  const common = `name="${name}" data-in="${esc(p.in)}"`;
  if (s.enum) {
    const none = p.required ? '' : `<option value="">${s.default !== undefined ? `default (${esc(s.default)})` : '—'}</option>`;
    const options = s.enum.map((v) => `<option value="${esc(v)}"${value === String(v) ? ' selected' : ''}>${esc(v)}</option>`).join('');
    return `<label>${name} <select ${common}${p.required ? ' required' : ''}>${none}${options}</select></label>`;
  }
  if (s.type === 'boolean') return `<label class="check"><input type="checkbox" ${common}${value === 'true' ? ' checked' : ''}> ${name}</label>`;
  const type = s.type === 'integer' ? ' type="number" inputmode="numeric"' : '';
  const limits = `${s.minimum !== undefined ? ` min="${s.minimum}"` : ''}${s.maximum !== undefined ? ` max="${s.maximum}"` : ''}`;
  const attrs = `${type}${limits}${p.required ? ' required' : ''}${value !== undefined ? ` value="${esc(value)}"` : ''}`;
  return `<label>${name} <input ${common}${attrs} placeholder="${esc(placeholderOf(p))}" autocomplete="off" spellcheck="false"></label>`;
}

const sections = [];
const toc = [];
for (const [path, ops] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(ops)) {
    const id = op.operationId ?? `${method}-${path}`;
    toc.push(`<li><a href="#${esc(id)}"><code>${method.toUpperCase()} ${esc(path)}</code></a> ${renderInline(op.summary ?? '')}</li>`);
    const params = (op.parameters ?? []).map((x) => param(doc, x));
    const rows = params
      .map(
        (p) =>
          `<tr><td data-label="parameter"><code>${esc(p.name)}</code> <span class="muted">${esc(p.in)}${p.required ? ', required' : ''}</span></td><td data-label="type">${typeOf(p.schema)}</td><td data-label="default">${p.schema?.default !== undefined ? `<code>${esc(JSON.stringify(p.schema.default))}</code>` : ''}</td><td data-label="description">${renderInline(p.description ?? p.schema?.description ?? '')}</td></tr>`,
      )
      .join('');
    const errors = Object.entries(op.responses)
      .filter(([s]) => Number(s) >= 400)
      .map(([s, r]) => `<li><code>${s}</code> ${renderInline(r.description ?? '')}</li>`)
      .join('');
    const live = examples[id];
    const example = live ? live.body : SAMPLE_BODIES[id];
    const exampleTitle = live ? `Example response: <code>GET ${esc(live.target)}</code> on the demo world` : 'Example response';
    const inputs = params.map((p) => control(p, live?.prefill ?? {})).join(' ');
    sections.push(`<section class="op" id="${esc(id)}" data-path="${esc(path)}">
<h2><code>${method.toUpperCase()} ${esc(path)}</code></h2>
${renderMarkdown(op.description ?? op.summary ?? '')}
${params.length ? `<table class="params"><caption class="visually-hidden">Parameters</caption><thead><tr><th scope="col">parameter</th><th scope="col">type and limits</th><th scope="col">default</th><th scope="col">description</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No parameters.</p>'}
${errors ? `<h3>Errors</h3><ul>${errors}</ul>` : ''}
${example !== undefined ? `<h3 class="example-title">${exampleTitle}</h3><pre class="example" tabindex="0">${esc(JSON.stringify(example, null, 2))}</pre>` : ''}
<form class="try" data-path="${esc(path)}"><h3>Try it</h3><div class="inputs">${inputs}</div><button>Send</button><output></output></form>
</section>`);
  }
}
writeFileSync(
  join(out, 'docs.html'),
  page(
    'docs',
    'API reference',
    `<h1>${esc(doc.info.title)} ${esc(doc.info.version)}</h1>
<p>Every route of <a href="/openapi.json">/openapi.json</a> (OpenAPI ${esc(doc.openapi)}). "Try it" calls this server, with the API key above when one is set; its fields start with the values of the demo world's examples.</p>
<nav aria-label="Operations"><ul id="operations">${toc.join('\n')}</ul></nav>
${sections.join('\n')}`,
  ),
);
process.stderr.write(`build: dist/explorer (${toc.length} operations in /docs, ${Object.keys(examples).length} examples from the demo world)\n`);

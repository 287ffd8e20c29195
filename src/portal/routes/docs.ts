/**
 * GET /openapi.json (OpenAPI 3.1, built by @fastify/swagger from the route schemas) and GET /docs, a reference
 * page rendered here from that document: plain HTML and CSS, no scripts, nothing from a CDN.
 */
import type { FastifyInstance } from 'fastify';

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  const?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  description?: string;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema; description?: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}

interface Document {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

/** The fields of every answer, described once at the top. */
const ENVELOPE = new Set(['success', 'errorCode', 'errorMessage', 'errorMessageTranslated', 'validationErrors']);

const esc = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function typeOf(s: Schema): string {
  if (s.enum) return s.enum.filter((v) => v !== null).map((v) => JSON.stringify(v)).join(' | ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  const t = ([] as string[]).concat(s.type ?? 'any').filter((x) => x !== 'null');
  const base = t.join(' | ') + (s.format ? ` (${s.format})` : '');
  if (t.includes('array') && s.items) return `array of ${typeOf(s.items)}`;
  return base;
}

function bounds(s: Schema): string {
  const b: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) b.push(`length ${s.minLength ?? 0} to ${s.maxLength ?? '∞'}`);
  if (s.minimum !== undefined || s.maximum !== undefined) b.push(`${s.minimum ?? '-∞'} to ${s.maximum ?? '∞'}`);
  if (s.minItems !== undefined || s.maxItems !== undefined) b.push(`${s.minItems ?? 0} to ${s.maxItems ?? '∞'} entries`);
  if (s.default !== undefined) b.push(`default ${JSON.stringify(s.default)}`);
  if (Array.isArray(s.type) && s.type.includes('null')) b.push('nullable');
  return b.join('; ');
}

function propertyRows(s: Schema, prefix = '', depth = 0): string {
  if (!s.properties) return '';
  let rows = '';
  for (const [name, p] of Object.entries(s.properties)) {
    const req = s.required?.includes(name) ? '<b>required</b>' : 'optional';
    rows += `<tr><td><code>${esc(prefix + name)}</code></td><td>${esc(typeOf(p))}</td><td>${req}</td><td>${esc(bounds(p))}</td><td>${esc(p.description ?? '')}</td></tr>`;
    if (depth < 2) {
      if (p.properties) rows += propertyRows(p, `${prefix}${name}.`, depth + 1);
      if (p.items?.properties) rows += propertyRows(p.items, `${prefix}${name}[].`, depth + 1);
    }
  }
  return rows;
}

const table = (rows: string): string => (rows ? `<table><tr><th>field</th><th>type</th><th></th><th>bounds</th><th>notes</th></tr>${rows}</table>` : '');

export function renderReference(doc: Document): string {
  const byTag = new Map<string, string[]>();
  const toc: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const anchor = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-');
      const tag = op.tags?.[0] ?? 'Other';
      let html = `<section id="${esc(anchor)}"><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>`;
      if (op.summary) html += `<p><b>${esc(op.summary)}</b></p>`;
      if (op.description) html += `<p>${esc(op.description)}</p>`;
      const params = op.parameters ?? [];
      if (params.length) {
        html += `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th></th><th>bounds</th><th>notes</th></tr>`;
        for (const p of params) html += `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${esc(p.schema ? typeOf(p.schema) : '')}</td><td>${p.required ? '<b>required</b>' : 'optional'}</td><td>${esc(p.schema ? bounds(p.schema) : '')}</td><td>${esc(p.description ?? p.schema?.description ?? '')}</td></tr>`;
        html += '</table>';
      }
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) html += `<h4>Request body (application/json)</h4>${table(propertyRows(body))}`;
      const ok = op.responses?.['200']?.content?.['application/json']?.schema;
      if (ok) {
        const rest = { ...ok, properties: Object.fromEntries(Object.entries(ok.properties ?? {}).filter(([k]) => !ENVELOPE.has(k))) };
        const rows = propertyRows(rest);
        html += rows ? `<h4>Answer 200: the envelope and</h4>${table(rows)}` : '<h4>Answer 200: the envelope only</h4>';
      }
      const codes = Object.entries(op.responses ?? {}).filter(([c]) => c !== '200');
      if (codes.length) html += `<p class="codes">Other answers: ${codes.map(([c, r]) => `<b>${esc(c)}</b> ${esc(r.description ?? '')}`).join(' · ')}</p>`;
      html += '</section>';
      const list = byTag.get(tag) ?? [];
      list.push(html);
      byTag.set(tag, list);
      toc.push(`<li><a href="#${esc(anchor)}"><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> ${esc(path)}</a> ${esc(op.summary ?? '')}</li>`);
    }
  }
  const title = esc(doc.info?.title ?? 'API');
  const sections = [...byTag.entries()].map(([tag, ops]) => `<h2>${esc(tag)}</h2>${ops.join('\n')}`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}code{font-family:ui-monospace,monospace}
table{border-collapse:collapse;margin:.5em 0 1em;width:100%}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;font-size:.92em}
th{background:#f3f3f3}section{border-top:1px solid #ddd;padding-top:.5em}.m{display:inline-block;min-width:3.5em;font-weight:bold;font-family:ui-monospace,monospace}
.get{color:#0a6}.post{color:#06c}.put{color:#a60}.codes{color:#555;font-size:.9em}ul.toc{columns:2;font-size:.9em}</style></head>
<body><h1>${title} ${esc(doc.info?.version ?? '')}</h1><p>${esc(doc.info?.description ?? '')}</p><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<p>Every answer carries the envelope: <code>success</code> (boolean), <code>errorCode</code>, <code>errorMessage</code>, <code>errorMessageTranslated</code> (strings, null on success) and <code>validationErrors</code> (field: list of messages, empty on success).</p>
<ul class="toc">${toc.join('')}</ul>${sections}</body></html>`;
}

export function docsRoutes(app: FastifyInstance): void {
  app.get('/openapi.json', { config: { publicRoute: true }, schema: { hide: true } }, async (_req, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())));
  let page: string | undefined;
  app.get('/docs', { config: { publicRoute: true }, schema: { hide: true } }, async (_req, reply) => {
    page ??= renderReference(app.swagger() as unknown as Document);
    return reply.type('text/html; charset=utf-8').send(page);
  });
}

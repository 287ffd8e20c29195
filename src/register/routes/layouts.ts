/**
 * Custom layouts (GET/POST/PUT/DELETE /peri/layout) and the template editor (/peri/pugedit).
 * Uploads are multipart forms with the field `file`; the multipart parser is registered in this
 * plugin's own scope, so every other route keeps the service's "body as text" parser.
 */
import { readFileSync } from 'node:fs';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, type Value, responseFormat } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { rnOfQuery } from '../register-number.js';
import {
  MAX_LAYOUT_BYTES,
  type LayoutFile,
  checkLayoutName,
  deleteLayout,
  findLayout,
  listLayouts,
  parseLayoutFileName,
  rnFolder,
  saveLayout,
} from '../render/layout-store.js';
import { previewData } from '../render/layouts/preview-data.js';
import { PUGEDIT_CSP, PUGEDIT_HTML, PUGEDIT_JS } from '../render/pugedit/page.js';
import { type TemplateKind, checkTemplate, renderTemplate } from '../render/template-sandbox.js';
import { failureOf, failureReply } from '../respond.js';
import { formatOf, guarded, queryOf, send, sendDoc } from './http.js';

const ROOT = 'Layout';

/** `type` of the query: pug or ejs (any case), or undefined. */
function kindOf(q: Readonly<Record<string, string>>): TemplateKind | undefined {
  const t = q.type;
  if (t === undefined || t === '') return undefined;
  const kind = t.toLowerCase();
  if (kind !== 'pug' && kind !== 'ejs') throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: `"${t}" is neither pug nor ejs` });
  return kind;
}

/** The register of the query (rn, default def; Multi POS: TaxId/TL/TT), checked to be usable as a folder name. */
function rnOf(ctx: ServiceContext, q: Readonly<Record<string, string>>): string {
  const rn = rnOfQuery(ctx, q);
  rnFolder(rn);
  return rn;
}

/** A layout entry: JSON as the spec shows it (`{RN, layouts, deleted?}`), XML under the root element Layout. */
function sendEntry(req: FastifyRequest, res: FastifyReply, rn: string, files: readonly LayoutFile[], status: number, deleted?: boolean): FastifyReply {
  const layouts = files.map((l) => ({ name: l.name, filePath: l.filePath, layoutType: l.kind.toUpperCase() }));
  const format = formatOf(req);
  if (format === 'json') {
    return res.code(status).type('application/json; charset=utf-8').send(JSON.stringify({ RN: rn, layouts, ...(deleted === undefined ? {} : { deleted }) }));
  }
  const body: Obj = { RN: rn, layouts: layouts as Value[] };
  if (deleted !== undefined) body.deleted = String(deleted);
  return sendDoc(res, format, ROOT, body, status);
}

interface Upload {
  fileName: string;
  source: string;
}

/** The form field `file` of a multipart request: #MISSING_FILE without one, #TOO_LARGE over the limit. */
async function uploadOf(req: FastifyRequest): Promise<Upload> {
  if (!req.isMultipart()) throw new FiscalError('#MISSING_FILE');
  let upload: { fileName: string; data: Buffer } | undefined;
  try {
    // preservePath: a name such as ../x.pug arrives as sent and is refused, rather than quietly cut to x.pug
    for await (const part of req.parts({ preservePath: true, limits: { fileSize: MAX_LAYOUT_BYTES, files: 5, fields: 20, parts: 25 } })) {
      if (part.type !== 'file') continue;
      // every file part must be read to its end, or the form's later parts never arrive
      const data = await part.toBuffer();
      if (part.fieldname === 'file' && upload === undefined && part.filename !== '') upload = { fileName: part.filename, data };
    }
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new FiscalError('#TOO_LARGE', { value: MAX_LAYOUT_BYTES });
    throw new FiscalError('#MALFORMED', { format: 'multipart form', detail: e instanceof Error ? e.message : String(e) });
  }
  if (!upload) throw new FiscalError('#MISSING_FILE');
  let source: string;
  try {
    source = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(upload.data);
  } catch {
    throw new FiscalError('#INVALID_VALUE', { field: 'file', detail: `"${upload.fileName}" is not UTF-8 text` });
  }
  return { fileName: upload.fileName, source };
}

/** POST (create) and PUT (replace): checks in the order of the spec's answers: the file, its name, its existence, its syntax. */
async function store(ctx: ServiceContext, req: FastifyRequest, mode: 'create' | 'replace'): Promise<{ rn: string; saved: LayoutFile }> {
  const q = queryOf(req);
  const rn = rnOf(ctx, q);
  const upload = await uploadOf(req);
  const { name, kind } = parseLayoutFileName(upload.fileName);
  const existing = findLayout(ctx.dataDir, rn, name);
  if (mode === 'create' && existing) throw new FiscalError('#FILE_EXISTS', { value: `${name} (${rn})` });
  if (mode === 'replace' && !existing) throw new FiscalError('#FILE_NOT_FOUND', { value: `${name} (${rn})` });
  checkTemplate(kind, upload.source, `${name}.${kind}`);
  return { rn, saved: saveLayout(ctx.dataDir, rn, name, kind, upload.source, mode) };
}

/**
 * Like `guarded`, but the body is a template, not a document: a template starting with `<` (ejs, HTML)
 * must not turn the error answer into XML. Only Accept chooses XML.
 */
async function guardedTemplate(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply, fn: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof FiscalError)) req.log.error({ err: e }, 'template preview failed');
    const lang = ctx.registers.lang(ctx.registers.get(queryOf(req).rn ?? 'def'));
    return send(res, failureReply(responseFormat(req.headers.accept, undefined), 'Result', failureOf(e, lang), ctx.profiles.settings('def').respond200));
  }
}

export function layoutsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_LAYOUT_BYTES } });

    scope.get('/peri/layout', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        const rn = rnOf(ctx, q);
        const kind = kindOf(q);
        if (q.name !== undefined && q.name !== '') {
          const found = findLayout(ctx.dataDir, rn, checkLayoutName(q.name), kind);
          if (!found) throw new FiscalError('#FILE_NOT_FOUND', { value: `${q.name}${kind ? `.${kind}` : ''} (${rn})` });
          return sendEntry(req, res, rn, [found], 200);
        }
        return sendEntry(req, res, rn, listLayouts(ctx.dataDir, rn).filter((l) => kind === undefined || l.kind === kind), 200);
      }),
    );

    // ours: the template text of one layout, for the editor to load it
    scope.get('/peri/layout/source', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        const rn = rnOf(ctx, q);
        if (q.name === undefined || q.name === '') throw new FiscalError('#MISSING_FIELD', { field: 'name' });
        const kind = kindOf(q);
        const found = findLayout(ctx.dataDir, rn, checkLayoutName(q.name), kind);
        if (!found) throw new FiscalError('#FILE_NOT_FOUND', { value: `${q.name} (${rn})` });
        return res.code(200).type('text/plain; charset=utf-8').header('x-layout-type', found.kind).header('cache-control', 'no-store').send(readFileSync(found.path, 'utf8'));
      }),
    );

    scope.post('/peri/layout', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const { rn, saved } = await store(ctx, req, 'create');
        return sendEntry(req, res, rn, [saved], 201);
      }),
    );

    scope.put('/peri/layout', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const { rn, saved } = await store(ctx, req, 'replace');
        return sendEntry(req, res, rn, [saved], 200);
      }),
    );

    scope.delete('/peri/layout', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        const rn = rnOf(ctx, q);
        if (q.name === undefined || q.name === '') throw new FiscalError('#MISSING_FIELD', { field: 'name' });
        const gone = deleteLayout(ctx.dataDir, rn, checkLayoutName(q.name), kindOf(q));
        return sendEntry(req, res, rn, gone, 200, true);
      }),
    );

    scope.get('/peri/pugedit', async (_req, res) =>
      res.code(200).type('text/html; charset=utf-8').header('content-security-policy', PUGEDIT_CSP).header('cache-control', 'no-store').send(PUGEDIT_HTML),
    );
    scope.get('/peri/pugedit/editor.js', async (_req, res) =>
      res.code(200).type('text/javascript; charset=utf-8').header('cache-control', 'no-store').send(PUGEDIT_JS),
    );

    // ours: renders the posted template text with the register's last receipt (or FN), for the editor's preview
    scope.post('/peri/pugedit/preview', async (req, res) =>
      guardedTemplate(ctx, req, res, async () => {
        const q = queryOf(req);
        const rn = rnOf(ctx, q);
        const kind = kindOf(q) ?? 'pug';
        const source = typeof req.body === 'string' ? req.body : '';
        if (Buffer.byteLength(source, 'utf8') > MAX_LAYOUT_BYTES) throw new FiscalError('#TOO_LARGE', { value: MAX_LAYOUT_BYTES });
        const name = q.name ? checkLayoutName(q.name) : 'preview';
        const data = await previewData(ctx, rn, q.fn === undefined || q.fn === '' ? undefined : q.fn);
        const html = await renderTemplate(kind, source, `${name}.${kind}`, data.locals);
        return res
          .code(200)
          .type('text/html; charset=utf-8')
          // opened on its own, the preview runs no script of the template
          .header('content-security-policy', 'sandbox')
          .header('x-preview-fn', data.fn ?? '')
          .header('cache-control', 'no-store')
          .send(html);
      }),
    );
  });
}

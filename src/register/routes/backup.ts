/**
 * Backup and restore: GET /backup (a register's zip, or with `?log` exactly what
 * GET /backup/log answers), GET /backup/incremental, GET and POST /service/config, GET and POST
 * /backup/restore, GET /backup/info. Bodies are read here as streams (not as text like the other routes):
 * an uploaded backup goes to a temporary file of the data folder, never into memory.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, encode, contentType } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { rnOfQuery } from '../register-number.js';
import { admittedAsInstance } from '../security/local-or-password.js';
import { BACKUP_UPLOAD_LIMIT } from '../security/route-access.js';
import { backupZip, noteBackup, planBackup } from '../maintenance/backup.js';
import { writeIncremental } from '../maintenance/backup-incremental.js';
import { type RestoreInfo, restorerOf } from '../maintenance/restore.js';
import { backupFilesOf } from '../maintenance/restore-read.js';
import { lastBackupResult, noteBackupResult, serviceConfig, serviceConfigPage, setIncrementalPath } from '../maintenance/service-config.js';
import { restorePage } from '../maintenance/restore-page.js';
import { formatOf, guarded, queryOf } from './http.js';

const FORM_LIMIT = 64 * 1024;
/** response headers not passed through from the injected /backup/log answer */
const HOP_HEADERS = new Set(['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'date']);

/** A small body (forms) as text; #TOO_LARGE beyond the limit. */
async function bodyText(req: FastifyRequest, limit = FORM_LIMIT): Promise<string> {
  const body = req.body as NodeJS.ReadableStream | undefined;
  if (!body || typeof (body as { on?: unknown }).on !== 'function') return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    const chunk = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += chunk.length;
    if (size > limit) throw new FiscalError('#TOO_LARGE', { value: limit });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes a stream to `file`, at most `limit` bytes (#TOO_LARGE beyond). */
async function toFile(stream: NodeJS.ReadableStream, file: string, limit: number): Promise<number> {
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) done(new FiscalError('#TOO_LARGE', { value: limit }));
      else done(null, chunk);
    },
  });
  await pipeline(stream, count, createWriteStream(file, { mode: 0o600 }));
  return size;
}

function wantsHtml(req: FastifyRequest): boolean {
  return /text\/html/i.test(req.headers.accept ?? '');
}

function infoModel(info: RestoreInfo): Obj {
  const o: Obj = {};
  for (const [k, v] of Object.entries(info)) {
    if (v === undefined) continue;
    o[k] = Array.isArray(v) ? v.map(String) : String(v);
  }
  return o;
}

function sendRestore(req: FastifyRequest, res: FastifyReply, info: RestoreInfo): FastifyReply {
  if (wantsHtml(req)) return res.code(200).type('text/html; charset=utf-8').send(restorePage(info));
  const format = formatOf(req);
  if (format === 'json') return res.code(200).type(contentType('json')).send(JSON.stringify({ Result: { RC: 'OK' }, Restore: info }));
  return res.code(200).type(contentType(format)).send(encode(format, 'Result', { RC: 'OK', Restore: infoModel(info) }));
}

/** What a POST /backup/restore names: a `path` (query or form), or the backup in the body (raw zip or multipart file). */
async function restoreInput(req: FastifyRequest, uploadDir: string): Promise<{ path?: string; rn?: string; upload?: string }> {
  const q = queryOf(req);
  const out: { path?: string; rn?: string; upload?: string } = {};
  if (q.path) out.path = q.path;
  if (q.rn) out.rn = q.rn;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const uploadFile = (): string => {
    mkdirSync(uploadDir, { recursive: true, mode: 0o700 });
    return join(uploadDir, `upload-${randomBytes(6).toString('hex')}.zip`);
  };
  if (req.isMultipart()) {
    try {
      for await (const part of req.parts({ limits: { fileSize: BACKUP_UPLOAD_LIMIT, files: 1, fields: 10 } })) {
        if (part.type === 'file') {
          const file = uploadFile();
          out.upload = file;
          await toFile(part.file, file, BACKUP_UPLOAD_LIMIT);
          if (part.file.truncated) throw new FiscalError('#TOO_LARGE', { value: BACKUP_UPLOAD_LIMIT });
        } else if (typeof part.value === 'string' && part.value !== '') {
          if (part.fieldname === 'path' && !out.path) out.path = part.value;
          if (part.fieldname.toLowerCase() === 'rn' && !out.rn) out.rn = part.value;
        }
      }
    } catch (e) {
      if (e instanceof FiscalError) throw e;
      const code = (e as { code?: unknown }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') throw new FiscalError('#TOO_LARGE', { value: BACKUP_UPLOAD_LIMIT });
      throw new FiscalError('#MALFORMED', { format: 'multipart form', detail: e instanceof Error ? e.message : String(e) });
    }
    return out;
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(await bodyText(req));
    if (!out.path && form.get('path')) out.path = form.get('path') as string;
    if (!out.rn && (form.get('rn') || form.get('RN'))) out.rn = (form.get('rn') || form.get('RN')) as string;
    return out;
  }
  const body = req.body as NodeJS.ReadableStream | undefined;
  if (body && typeof (body as { on?: unknown }).on === 'function') {
    const file = uploadFile();
    const size = await toFile(body, file, BACKUP_UPLOAD_LIMIT);
    if (size > 0) out.upload = file;
    else rmSync(file, { force: true });
  }
  return out;
}

/**
 * Answers a register's backup zip (`q`: rn, from, last) as an attachment, noted as downloaded once it was sent;
 * FiscalError when it cannot. GET /backup and the journal page's download (GET /ui/journal/backup) answer with it.
 */
export async function sendBackup(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply, q: Readonly<Record<string, string>>): Promise<FastifyReply> {
  const rn = rnOfQuery(ctx, q);
  // the instance's private keys go only to whoever holds the instance's credentials (or sits at this machine)
  const instanceKeys = admittedAsInstance(ctx, req);
  const plan = await planBackup(ctx, rn, { ...(q.from !== undefined ? { from: q.from } : {}), ...(q.last !== undefined ? { last: q.last } : {}), instanceKeys });
  const m = plan.manifest;
  res.code(200).type('application/zip').header('content-disposition', `attachment; filename=${m.name}.zip`).header('cache-control', 'no-store');
  // HEAD: the headers only; nothing was handed over, so nothing is marked archived
  if (req.method === 'HEAD') return res.send();
  const zip = backupZip(ctx, plan);
  let failed = false;
  zip.on('error', (e) => {
    failed = true;
    req.log.error({ err: e, rn }, 'backup failed while streaming');
  });
  res.raw.once('finish', () => {
    if (failed) return;
    const info = `${m.kind} backup ${m.name}.zip: SQ ${m.firstSQ} to ${m.lastSQ} (${m.count} records), downloaded`;
    void noteBackup(ctx, m, 'backup')
      .then(() => noteBackupResult(ctx.store, { at: ctx.clock.now().toISOString(), action: 'backup', rn, ok: true, info }))
      .catch((e: unknown) => req.log.error({ err: e, rn }, 'the backup could not be noted'));
  });
  return res.send(zip);
}

export function backupRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const restorer = restorerOf(ctx);
  // the instance is "online" once any register moves after this point (restore.ts)
  app.addHook('onReady', async () => restorer.markStarted());
  const uploadDir = join(ctx.dataDir, 'backup', 'upload.tmp');

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    await scope.register(multipart, { limits: { fileSize: BACKUP_UPLOAD_LIMIT } });

    scope.get('/backup', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        if (q.log !== undefined) {
          // exactly what GET /backup/log answers to the same query
          const at = req.url.indexOf('?');
          const headers: Record<string, string> = {};
          for (const h of ['accept', 'accept-language', 'authorization', 'user-agent']) {
            const v = req.headers[h];
            if (typeof v === 'string') headers[h] = v;
          }
          const r = await app.inject({ method: 'GET', url: `/backup/log${at < 0 ? '' : req.url.slice(at)}`, headers, remoteAddress: req.socket?.remoteAddress ?? '127.0.0.1' });
          res.code(r.statusCode);
          for (const [k, v] of Object.entries(r.headers)) if (v !== undefined && !HOP_HEADERS.has(k.toLowerCase())) res.header(k, v);
          return res.send(r.rawPayload);
        }
        return sendBackup(ctx, req, res, q);
      }),
    );

    scope.get('/backup/incremental', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        const rn = rnOfQuery(ctx, q);
        const path = q.path || (await serviceConfig(ctx.store)).incrementalPath;
        if (!path) throw new FiscalError('#MISSING_FIELD', { field: 'path (or the incremental backup path of /service/config)' });
        try {
          const r = await writeIncremental(ctx, rn, path);
          const info = [
            `register ${rn}: incremental backup ${r.number} written`,
            `file: ${r.file}`,
            r.count > 0 ? `records: SQ ${r.firstSQ} to ${r.lastSQ} (${r.count})` : `records: none new since SQ ${r.lastSQ}`,
            `bytes: ${r.bytes}`,
          ].join('\n');
          await noteBackupResult(ctx.store, { at: ctx.clock.now().toISOString(), action: 'incremental backup', rn, ok: true, info });
          return res.code(200).type('text/plain; charset=utf-8').send(`${info}\n`);
        } catch (e) {
          const info = e instanceof FiscalError ? e.message : 'the incremental backup failed';
          await noteBackupResult(ctx.store, { at: ctx.clock.now().toISOString(), action: 'incremental backup', rn, ok: false, info }).catch(() => undefined);
          throw e;
        }
      }),
    );

    const configPage = async (req: FastifyRequest, res: FastifyReply, message?: string): Promise<FastifyReply> => {
      const config = await serviceConfig(ctx.store);
      const last = await lastBackupResult(ctx.store);
      if (/json/i.test(req.headers.accept ?? '')) {
        return res.code(200).type(contentType('json')).send(JSON.stringify({ ServiceConfig: { IncrementalPath: config.incrementalPath ?? '', LastBackup: last ?? null } }));
      }
      return res.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(serviceConfigPage(config, last, message));
    };

    scope.get('/service/config', async (req, res) => guarded(ctx, req, res, 'Result', () => configPage(req, res)));

    scope.post('/service/config', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const text = await bodyText(req);
        let path: string | undefined = queryOf(req).path;
        if (path === undefined && text.trim().startsWith('{')) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch (e) {
            throw new FiscalError('#MALFORMED', { format: 'JSON', detail: e instanceof Error ? e.message : String(e) });
          }
          const v = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).path : undefined;
          if (v !== undefined && typeof v !== 'string') throw new FiscalError('#INVALID_TYPE', { field: 'path', expected: 'text', value: JSON.stringify(v) });
          path = v;
        } else if (path === undefined) {
          path = new URLSearchParams(text).get('path') ?? undefined;
        }
        if (path === undefined) throw new FiscalError('#MISSING_FIELD', { field: 'path' });
        const config = await setIncrementalPath(ctx.store, path);
        return configPage(req, res, config.incrementalPath ? `Saved: incremental backups go to ${config.incrementalPath}` : 'Saved: no incremental backup path');
      }),
    );

    scope.get('/backup/info', async (_req, res) => res.code(200).type(contentType('json')).header('cache-control', 'no-store').send(JSON.stringify(restorer.info)));

    const restore = async (req: FastifyRequest, res: FastifyReply, input: { path?: string; rn?: string; upload?: string }): Promise<FastifyReply> => {
      try {
        const sources = input.upload ? [input.upload] : backupFilesOf(input.path as string);
        const info = await restorer.restore(sources, input.rn);
        return sendRestore(req, res, info);
      } finally {
        if (input.upload) rmSync(input.upload, { force: true });
      }
    };

    scope.get('/backup/restore', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        if (!q.path) return res.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(restorePage(restorer.info));
        return restore(req, res, { path: q.path, ...(q.rn ? { rn: q.rn } : {}) });
      }),
    );

    scope.post('/backup/restore', { bodyLimit: BACKUP_UPLOAD_LIMIT }, async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const input = await restoreInput(req, uploadDir);
        if (!input.upload && !input.path) {
          throw new FiscalError('#MISSING_FIELD', { field: 'path (or the backup zip as the body or the form\'s file)' });
        }
        return restore(req, res, input);
      }),
    );
  });
}

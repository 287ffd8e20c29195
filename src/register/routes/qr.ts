/**
 * GET /qr (any text as a QR image), GET /recorder/lastdh (the document handle of the register's last
 * transaction) and GET /recorder/lastdh/qr (that handle as a QR image).
 */
import type { FastifyInstance } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { Obj } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import type { JournalRecord } from '../journal/types.js';
import type { Register } from '../registers.js';
import { type QrFormat, type QrImageOptions, QR_BOUNDS, qrImage } from '../render/qr/index.js';
import { bitsOf, ecLevelOf, formatOf as qrFormatOf, wholeNumber } from '../render/qr/options.js';
import { type DocumentHandle, documentHandle } from '../render/qr/document-handle.js';
import { type Query, formatOf, guarded, queryOf, registerOf, sendDoc } from './http.js';

/** The image options of a query; `size` defaults per format (pc437 counts characters, not pixels). */
function imageOptions(q: Query, format: QrFormat, defaults: { size: number; margin: number }): QrImageOptions {
  const o: QrImageOptions = {
    ecLevel: q.ec_level !== undefined ? ecLevelOf('ec_level', q.ec_level) : 'M',
    size: q.size !== undefined ? wholeNumber('size', q.size, QR_BOUNDS.size.min, QR_BOUNDS.size.max) : format === 'pc437' ? 1 : defaults.size,
    margin: q.margin !== undefined ? wholeNumber('margin', q.margin, QR_BOUNDS.margin.min, QR_BOUNDS.margin.max) : defaults.margin,
  };
  if (q.bits !== undefined) {
    if (format !== 'bmp') throw new FiscalError('#INVALID_VALUE', { field: 'bits', detail: 'only for the BMP format' });
    o.bits = bitsOf('bits', q.bits);
  }
  return o;
}

/** `small` as a flag: `small`, `small=true` or `small=1` are true; `false`/`0` (or absent) false. */
function flag(field: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new FiscalError('#INVALID_VALUE', { field, detail: `true or false, got "${value}"` });
}

async function lastTransaction(ctx: ServiceContext, reg: Register): Promise<JournalRecord> {
  const sq = reg.state.last.Tra;
  const record = sq ? await ctx.registers.record(reg, sq) : undefined;
  if (!record) throw new FiscalError('#NOT_FOUND', { value: `a transaction of register ${reg.state.rn}` });
  return record;
}

async function lastHandle(ctx: ServiceContext, q: Query): Promise<{ dh: DocumentHandle; record: JournalRecord }> {
  const reg = await registerOf(ctx, q);
  const record = await lastTransaction(ctx, reg);
  return { dh: documentHandle(ctx.signer.keyId, reg.state.rn, record), record };
}

export function qrRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/qr', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const text = q.text;
      if (text === undefined || text === '') throw new FiscalError('#MISSING_FIELD', { field: 'text' });
      if (text.length > QR_BOUNDS.maxText) throw new FiscalError('#INVALID_VALUE', { field: 'text', detail: `at most ${QR_BOUNDS.maxText} characters, got ${text.length}` });
      const format = qrFormatOf('type', q.type ?? 'png');
      const image = await qrImage(text, format, imageOptions(q, format, { size: 4, margin: 1 }));
      return res.code(200).type(image.contentType).send(image.body);
    }),
  );

  app.get('/recorder/lastdh', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const { dh, record } = await lastHandle(ctx, queryOf(req));
      res.header('cache-control', 'no-store');
      const accept = (req.headers.accept ?? '').toLowerCase();
      if (accept.includes('text/plain') && !accept.includes('xml') && !accept.includes('json')) return res.code(200).type('text/plain; charset=utf-8').send(dh.handle);
      const body: Obj = { DH: dh.handle, RH: dh.register, TH: dh.transaction, SQ: String(record.sq), D: record.d };
      for (const [name, v] of [['TL', record.tl], ['TT', record.tt], ['TN', record.tn], ['FN', record.fn]] as const) if (v !== undefined) body[name] = v;
      return sendDoc(res, formatOf(req), 'LastDH', body);
    }),
  );

  app.get('/recorder/lastdh/qr', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const q = queryOf(req);
      const small = flag('small', q.small);
      // the spec's table lists `svc`: read as svg
      const fmt = (q.fmt ?? 'png').trim().toLowerCase() === 'svc' ? 'svg' : (q.fmt ?? 'png');
      const format = qrFormatOf('fmt', fmt);
      const options = imageOptions(q, format, { size: 5, margin: 4 });
      const { dh } = await lastHandle(ctx, q);
      const image = await qrImage(small ? dh.register : dh.handle, format, options);
      return res.code(200).type(image.contentType).header('cache-control', 'no-store').send(image.body);
    }),
  );
}

/** GET /export: files by type; for now `jou`, the journal as a zip with its proof script. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { type ExportPeriod, exportFileName, jouExportZip, planJouExport } from '../journal/export/jou-export.js';
import { isDate } from '../esr/datetime.js';
import { countryOf, moduleFor } from '../fiscal/registry.js';
import { cashboxIdOf, companyOf } from '../fiscal/at/index.js';
import { requireLocalOrPassword } from '../security/local-or-password.js';
import { buildDep, depZip } from '../fiscal/at/dep.js';
import { dsfinvkZip, exportTse, gobdZip } from '../fiscal/de/exports.js';
import { guarded, queryOf, registerOf } from './http.js';

/** Export types this instance writes (spec: jou, dep, tse, gobd, dsfinvk, saft, nf525-*; verifactu is ours, docs/countries/es.md). */
export const EXPORT_TYPES: readonly string[] = ['jou', 'dep', 'tse', 'dsfinvk', 'gobd', 'saft', 'nf525-export', 'nf525-total', 'nf525-jet', 'nf525-jou', 'verifactu'];

/** `from` and `till` (YYYY-MM-DD, inclusive). */
export function periodOf(q: Readonly<Record<string, string>>): ExportPeriod {
  const period: ExportPeriod = {};
  for (const name of ['from', 'till'] as const) {
    const v = q[name];
    if (v === undefined || v === '') continue;
    if (!isDate(v)) throw new FiscalError('#INVALID_VALUE', { field: name, detail: `"${v}" is not a date YYYY-MM-DD` });
    period[name] = v;
  }
  if (period.from !== undefined && period.till !== undefined && period.from > period.till) {
    throw new FiscalError('#INVALID_VALUE', { field: 'from', detail: `${period.from} is after till ${period.till}` });
  }
  return period;
}

export function exportRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/export', async (req, res) => guarded(ctx, req, res, 'Result', async () => sendExport(ctx, req, res, queryOf(req))));
}

/**
 * Answers an export (`q`: type, rn, from, till and the type's own options) as an attachment; FiscalError when it
 * cannot. GET /export and the journal page's download (GET /ui/journal/export) both answer with it.
 */
export async function sendExport(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply, q: Readonly<Record<string, string>>): Promise<FastifyReply> {
  const supported = `supported export types: ${EXPORT_TYPES.join(', ')}`;
  const type = q.type;
  if (type === undefined || type === '') throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: `required; ${supported}` });
  if (!EXPORT_TYPES.includes(type.toLowerCase())) throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: `"${type}" is not supported by this instance; ${supported}` });
  if (q.target !== undefined) {
    throw new FiscalError('#INVALID_VALUE', { field: 'target', detail: 'writing the export into a folder of the service is not supported; the file is the response' });
  }
  const period = periodOf(q);
  const reg = await registerOf(ctx, q);
  const rn = reg.state.rn;
  const rid = reg.state.rid;
  const kind = type.toLowerCase();
  if (q.open !== undefined && kind !== 'dsfinvk') throw new FiscalError('#INVALID_VALUE', { field: 'open', detail: 'only for type dsfinvk' });
  if ((kind === 'tse' || kind === 'dsfinvk' || kind === 'gobd') && countryOf(reg.state.cfg) !== 'DE') {
    throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: `${kind} is an export of German registers (Cfg.Cmp.Ctry DE)` });
  }
  const countryExport = moduleFor(reg.state.cfg).exports?.[kind];
  if (countryExport) {
    const file = await countryExport({ ctx, reg, query: q, period, requireLocalOrPassword: (what) => requireLocalOrPassword(ctx, req, q, rn, what) });
    return res.code(200).type(file.contentType).header('content-disposition', `attachment; filename="${file.file}"`).header('cache-control', 'no-store').send(file.body);
  }
  if (kind !== 'jou' && !['tse', 'dsfinvk', 'gobd', 'dep'].includes(kind)) {
    const country = countryOf(reg.state.cfg) || 'none';
    throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: `${kind} is not an export of registers of country ${country} (Cfg.Cmp.Ctry)` });
  }
  if (kind === 'dsfinvk') {
    const open = (q.open ?? '').toLowerCase();
    if (!['', 'on', 'off'].includes(open)) throw new FiscalError('#INVALID_VALUE', { field: 'open', detail: `"${q.open ?? ''}" is neither on nor off` });
    const exp = await dsfinvkZip(ctx, reg, period, open === 'on');
    if (exp.closings === 0) {
      throw new FiscalError('#NOT_FOUND', { value: `closings (Z) of ${rn}${open === 'on' ? '' : '; receipts after the last Z are exported with open=on'}` });
    }
    return res.code(200).type('application/zip').header('content-disposition', 'attachment; filename="export.zip"').header('cache-control', 'no-store').send(exp.zip);
  }
  if (kind === 'gobd') {
    const exp = await gobdZip(ctx, reg, period);
    if (exp.records === 0) throw new FiscalError('#NOT_FOUND', { value: `journal records of ${rn}` });
    return res.code(200).type('application/zip').header('content-disposition', 'attachment; filename="gobd.zip"').header('cache-control', 'no-store').send(exp.zip);
  }
  if (kind === 'tse') {
    const { tar } = await exportTse(ctx, reg, period);
    return res.code(200).type('application/x-tar').header('content-disposition', 'attachment; filename="export.tar"').send(tar);
  }
  if (kind === 'dep') {
    if (countryOf(reg.state.cfg) !== 'AT') throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: 'dep is the export of Austrian registers (Cfg.Cmp.Ctry AT)' });
    const cashboxId = cashboxIdOf(ctx.profiles.settings(rn).raw, reg.state.cfg);
    // the AES key leaves the cashbox only when asked for, and only locally or with the password
    const withAes = ['1', 'true', 'on'].includes((q.aes ?? '').toLowerCase());
    if (withAes) requireLocalOrPassword(ctx, req, q, rn, 'GET /export?type=dep&aes=1');
    const exp = await buildDep(ctx.store, ctx.dataDir, rid, cashboxId, companyOf(reg.state.cfg), withAes);
    if (exp.count === 0) throw new FiscalError('#NOT_FOUND', { value: `signed receipts of cashbox ${cashboxId}` });
    return res
      .code(200)
      .type('application/zip')
      .header('content-disposition', `attachment; filename="dep-export.zip"`)
      .send(depZip(exp));
  }
  // what is committed (the in-memory head may be ahead while a commit is in flight)
  const head = (await ctx.store.loadRegisters()).find((s) => s.rid === rid)?.sq ?? 0;
  const plan = await planJouExport(ctx.store, rid, rn, head, period);
  if (!plan) {
    const when = period.from !== undefined || period.till !== undefined ? ` dated ${period.from ?? '...'} to ${period.till ?? '...'}` : '';
    throw new FiscalError('#NOT_FOUND', { value: `journal records of ${rn}${when}` });
  }
  const zip = jouExportZip(ctx.store, plan, { publicKeyPem: ctx.signer.publicKeyPem(), keyId: ctx.signer.keyId, exportedAt: ctx.clock.now(), generator: `efr ${ctx.version}` });
  zip.on('error', (e) => req.log.error({ err: e, rn }, 'journal export failed while streaming'));
  return res
    .code(200)
    .type('application/zip')
    .header('content-disposition', `attachment; filename="${exportFileName(plan)}"`)
    .header('cache-control', 'no-store')
    .send(zip);
}

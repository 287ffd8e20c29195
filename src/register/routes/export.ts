/**
 * GET /export: files by type. `jou`, the journal as a zip with its proof script, is every register's; the
 * other types are the ones the register's country module declares (`FiscalModule.exports`).
 */
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { type ExportPeriod, exportFileName, jouExportZip, planJouExport } from '../journal/export/jou-export.js';
import { isDate } from '../esr/datetime.js';
import { countryModules, countryOf, exportNotYetAvailable, moduleFor } from '../fiscal/registry.js';
import type { ExportFile } from '../fiscal/module.js';
import type { Register } from '../registers.js';
import { requireLocalOrPassword } from '../security/local-or-password.js';
import { targetFolder, writeExportInto } from './export-target.js';
import { guarded, queryOf, registerOf } from './http.js';
import { einvoiceExport } from '../einvoice/issue.js';

/** The countries whose registers have each export type, by type; `jou` is every register's. */
function exportOwners(): ReadonlyMap<string, readonly string[]> {
  const owners = new Map<string, string[]>([['jou', []]]);
  for (const m of countryModules()) {
    for (const type of Object.keys(m.exports ?? {})) owners.set(type, [...(owners.get(type) ?? []), m.country]);
  }
  // the e-invoice of one invoice (einvoice/): every register's, listed last
  owners.set('einvoice', []);
  return owners;
}

/** Export types this instance writes (spec: jou, dep, tse, gobd, dsfinvk, saft, nf525-*; verifactu is ours, docs/countries/es.md). */
export const EXPORT_TYPES: readonly string[] = [...exportOwners().keys()];

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
 * Answers an export (`q`: type, rn, from, till, target and the type's own options) as an attachment; FiscalError
 * when it cannot. With `target` the file is first written into that folder of this machine (export-target.ts).
 * GET /export and the journal page's download (GET /ui/journal/export, which passes no target) both answer with it.
 */
export async function sendExport(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply, q: Readonly<Record<string, string>>): Promise<FastifyReply> {
  const supported = `supported export types: ${EXPORT_TYPES.join(', ')}`;
  const type = q.type;
  if (type === undefined || type === '') throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: `required; ${supported}` });
  if (!EXPORT_TYPES.includes(type.toLowerCase())) throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: `"${type}" is not supported by this instance; ${supported}` });
  const period = periodOf(q);
  const reg = await registerOf(ctx, q);
  const rn = reg.state.rn;
  // the folder is checked before the export is made: a wrong target costs no export
  let folder: string | undefined;
  if (q.target !== undefined) {
    requireLocalOrPassword(ctx, req, q, rn, 'target (writing the export into a folder of this machine)');
    folder = targetFolder(ctx, q.target);
  }
  const file = await exportFileOf(ctx, req, q, reg, period);
  if (folder === undefined) return sendFile(res, file, file.body);
  const written = await writeExportInto(folder, file, q.target);
  // the answer is the file by type, as without target: read back from the folder it was written into
  return sendFile(res, file, createReadStream(written));
}

function sendFile(res: FastifyReply, file: ExportFile, body: ExportFile['body']): FastifyReply {
  return res.code(200).type(file.contentType).header('content-disposition', `attachment; filename="${file.file}"`).header('cache-control', 'no-store').send(body);
}

/** The export file of type `q.type` of the register, from its country's module or, `jou`, the journal. */
async function exportFileOf(ctx: ServiceContext, req: FastifyRequest, q: Readonly<Record<string, string>>, reg: Register, period: ExportPeriod): Promise<ExportFile> {
  const rn = reg.state.rn;
  const rid = reg.state.rid;
  const kind = (q.type ?? '').toLowerCase();
  // the e-invoice of one invoice, by its FN (docs/einvoicing.md): every register's
  if (kind === 'einvoice') return einvoiceExport(ctx, reg, q);
  const countryExport = moduleFor(reg.state.cfg).exports?.[kind];
  if (countryExport) return countryExport({ ctx, reg, query: q, period, requireLocalOrPassword: (what) => requireLocalOrPassword(ctx, req, q, rn, what) });
  if (kind !== 'jou') {
    const gap = exportNotYetAvailable(countryOf(reg.state.cfg), kind);
    if (gap) throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: gap });
    const owners = exportOwners().get(kind) ?? [];
    throw new FiscalError('#INVALID_VALUE', { field: 'type', detail: `${kind} is not an export of registers of country ${countryOf(reg.state.cfg) || 'none'} (Cfg.Cmp.Ctry); it is one of registers of ${owners.join(', ')}` });
  }
  if (q.open !== undefined) throw new FiscalError('#INVALID_VALUE', { field: 'open', detail: 'not an option of the jou export' });
  // what is committed (the in-memory head may be ahead while a commit is in flight)
  const head = (await ctx.store.loadRegisters()).find((s) => s.rid === rid)?.sq ?? 0;
  const plan = await planJouExport(ctx.store, rid, rn, head, period);
  if (!plan) {
    const when = period.from !== undefined || period.till !== undefined ? ` dated ${period.from ?? '...'} to ${period.till ?? '...'}` : '';
    throw new FiscalError('#NOT_FOUND', { value: `journal records of ${rn}${when}` });
  }
  const zip = jouExportZip(ctx.store, plan, { publicKeyPem: ctx.signer.publicKeyPem(), keyId: ctx.signer.keyId, exportedAt: ctx.clock.now(), generator: `efr ${ctx.version}` });
  zip.on('error', (e) => req.log.error({ err: e, rn }, 'journal export failed while streaming'));
  return { body: zip, file: exportFileName(plan), contentType: 'application/zip' };
}

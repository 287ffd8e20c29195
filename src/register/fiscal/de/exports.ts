/** The German exports as streams: the TSE's TAR (`type=tse`), DSFinV-K (`type=dsfinvk`) and GoBD (`type=gobd`). */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime, nextDay } from '../../esr/datetime.js';
import type { Register } from '../../registers.js';
import { buildDsfinvk } from './dsfinvk/build.js';
import { gdpduZip } from './gdpdu/data-set.js';
import { buildGobd } from './gobd.js';
import { appendRecord } from '../../record-writer.js';
import { systemEventFis } from './system-events.js';
import { tseCertificate, tseTar } from './tse-export.js';
import { openTse } from './tse.js';
import type { ExportFile, ExportRequest } from '../module.js';

export interface DatePeriod {
  from?: string;
  till?: string;
}

function supplier(cfg: Obj, comment: string): { name: string; location: string; comment: string } {
  const cmp = obj(cfg, 'Cmp') ?? {};
  return { name: str(cmp, 'Nam') ?? 'unknown company', location: [str(cmp, 'Zip'), str(cmp, 'City')].filter(Boolean).join(' ') || 'unknown', comment };
}

/**
 * The TSE export of a period (dates; or the logs after signature counter `afterCounter`, for a backup
 * since the last one). The
 * export is itself a system event of the TSE (exportData): journaled as a `log` record before the
 * TAR is read, so the TAR holds it.
 */
export async function exportTse(ctx: ServiceContext, reg: Register, period: DatePeriod & { afterCounter?: bigint }): Promise<{ tar: NodeJS.ReadableStream; throughCounter: bigint }> {
  const rn = reg.state.rn;
  const bound = (d: string | undefined, end: boolean): bigint | undefined => (d ? BigInt(Math.floor(new Date(`${d}T${end ? '23:59:59' : '00:00:00'}`).getTime() / 1000)) : undefined);
  const from = bound(period.from, false);
  const till = bound(period.till, true);
  const tse = openTse(ctx.dataDir, rn);
  const now = ctx.clock.now();
  const d = formatLocalDateTime(now);
  let throughCounter = 0n;
  await appendRecord(ctx, reg, { type: 'log', data: { TS: d, Event: 'TSE exportData' }, index: { d } }, (): Obj => {
    const fis = systemEventFis(reg.state.country, tse, BigInt(Math.floor(now.getTime() / 1000)), {
      operationType: 'exportData',
      ...(from !== undefined ? { startDate: from } : {}), ...(till !== undefined ? { endDate: till } : {}),
      ...(period.afterCounter !== undefined ? { previousSignatureCounter: period.afterCounter } : {}),
    });
    throughCounter = BigInt(reg.state.country['de|sigCnt'] ?? '0');
    return fis;
  });
  // what the TSE signed up to its export's own log; later transactions belong to the next export
  const tar = await tseTar(ctx.store, ctx.dataDir, reg.state.rid, rn, {
    ...(from !== undefined ? { from } : {}), ...(till !== undefined ? { till } : {}),
    ...(period.afterCounter !== undefined ? { afterCounter: period.afterCounter } : {}), throughCounter,
  });
  return { tar, throughCounter };
}

export async function dsfinvkZip(ctx: ServiceContext, reg: Register, period: DatePeriod & { afterZ?: number }, open: boolean): Promise<{ zip: NodeJS.ReadableStream; closings: number; receipts: number; lastZ: number }> {
  const rn = reg.state.rn;
  const tse = openTse(ctx.dataDir, rn);
  const cert = await tseCertificate(ctx.dataDir, rn);
  const result = await buildDsfinvk({
    store: ctx.store, rid: reg.state.rid, rn, cfg: reg.state.cfg,
    tse: { serialHex: tse.serial.toString('hex'), publicKeyB64: tse.publicKey.toString('base64'), certificateB64: cert.toString('base64') },
    ...(period.from ? { from: period.from } : {}), ...(period.till ? { till: period.till } : {}),
    ...(period.afterZ !== undefined ? { afterZ: period.afterZ } : {}), open, now: formatLocalDateTime(ctx.clock.now()), software: { brand: 'efr', version: ctx.version },
  });
  const validity = result.first && result.last ? { validity: { from: result.first, to: result.last } } : {};
  const zip = gdpduZip(result.tables, { supplier: supplier(reg.state.cfg, `DSFinV-K 2.3 der Kasse ${rn}, erstellt von efr ${ctx.version}`), media: 'DSFinV-K', ...validity });
  return { zip, closings: result.closings, receipts: result.receipts, lastZ: result.lastZ };
}

export async function gobdZip(ctx: ServiceContext, reg: Register, period: DatePeriod): Promise<{ zip: NodeJS.ReadableStream; records: number }> {
  const rn = reg.state.rn;
  const result = await buildGobd(ctx.store, reg.state.rid, { ...(period.from ? { from: period.from } : {}), ...(period.till ? { before: nextDay(period.till) } : {}) });
  const validity = period.from && period.till ? { validity: { from: period.from, to: period.till } } : {};
  const zip = gdpduZip(
    result.tables,
    { supplier: supplier(reg.state.cfg, `GoBD-Datenträgerüberlassung (Z3) der Kasse ${rn}, erstellt von efr ${ctx.version}`), media: 'GoBD', ...validity },
    [{ name: 'journal-public-key.pem', data: Buffer.from(ctx.signer.publicKeyPem()) }],
  );
  return { zip, records: result.records };
}

/** GET /export?type=dsfinvk: the closings (Z) of the period; with open=on also the receipts after the last Z. */
async function exportDsfinvk(req: ExportRequest): Promise<ExportFile> {
  const open = (req.query.open ?? '').toLowerCase();
  if (!['', 'on', 'off'].includes(open)) throw new FiscalError('#INVALID_VALUE', { field: 'open', detail: `"${req.query.open ?? ''}" is neither on nor off` });
  const exp = await dsfinvkZip(req.ctx, req.reg, req.period, open === 'on');
  if (exp.closings === 0) {
    throw new FiscalError('#NOT_FOUND', { value: `closings (Z) of ${req.reg.state.rn}${open === 'on' ? '' : '; receipts after the last Z are exported with open=on'}` });
  }
  return { body: exp.zip, file: 'export.zip', contentType: 'application/zip' };
}

/** `open` chooses what a DSFinV-K export holds; another type refuses it rather than ignore it. */
function refuseOpen(req: ExportRequest): void {
  if (req.query.open !== undefined) throw new FiscalError('#INVALID_VALUE', { field: 'open', detail: 'only for type dsfinvk' });
}

async function exportGobd(req: ExportRequest): Promise<ExportFile> {
  refuseOpen(req);
  const exp = await gobdZip(req.ctx, req.reg, req.period);
  if (exp.records === 0) throw new FiscalError('#NOT_FOUND', { value: `journal records of ${req.reg.state.rn}` });
  return { body: exp.zip, file: 'gobd.zip', contentType: 'application/zip' };
}

async function exportTseTar(req: ExportRequest): Promise<ExportFile> {
  refuseOpen(req);
  const { tar } = await exportTse(req.ctx, req.reg, req.period);
  return { body: tar, file: 'export.tar', contentType: 'application/x-tar' };
}

/** The GET /export types of German registers, in the order they are listed. */
export const DE_EXPORTS: Readonly<Record<string, (req: ExportRequest) => Promise<ExportFile>>> = { tse: exportTseTar, dsfinvk: exportDsfinvk, gobd: exportGobd };

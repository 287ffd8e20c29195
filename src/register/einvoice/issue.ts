/**
 * The e-invoice of a committed transaction: made from its journal record (ESR and Fis, with the FN) and the
 * register's configuration, and kept beside the journal (store.ts) for GET /export?type=einvoice.
 */
import { FiscalError } from '../../shared/errors.js';
import { type Obj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { classify } from '../esr/business-case.js';
import type { ExportFile } from '../fiscal/module.js';
import type { JournalRecord } from '../journal/types.js';
import type { Sealed } from '../record-answer.js';
import type { Register } from '../registers.js';
import { einvoiceXml, wantsEinvoice } from './index.js';
import { loadEinvoice, saveEinvoice } from './store.js';

function asksEinvoice(data: Obj): boolean {
  const esr = data.ESR;
  return str(data, '_') === 'Tra' && typeof esr === 'object' && !Array.isArray(esr) && wantsEinvoice(esr, classify(esr));
}

/**
 * After the commit: the e-invoice is made and kept. It was checked before journaling, so it cannot be refused
 * here; a file that cannot be written is made again from the journal when it is asked for (einvoiceExport).
 */
export async function issueEinvoice(ctx: ServiceContext, reg: Register, sealed: Sealed, duplicate: boolean): Promise<void> {
  if (duplicate || !asksEinvoice(sealed.data)) return;
  const sq = Number(str(sealed.data, 'SQ'));
  try {
    await saveEinvoice(ctx.dataDir, reg.state.rn, sq, einvoiceXml(sealed.data, reg.state.cfg));
  } catch {
    // journaled already: the export makes it from the record when the file is missing
  }
}

async function recordOf(ctx: ServiceContext, reg: Register, q: Readonly<Record<string, string>>): Promise<JournalRecord> {
  const rid = reg.state.rid;
  const fn = q.fn;
  let found: JournalRecord[];
  let what: string;
  if (fn !== undefined && fn !== '') {
    found = await ctx.store.byFn(rid, fn);
    what = `FN ${fn}`;
  } else if (q.tn !== undefined && q.tn !== '') {
    found = await ctx.store.byTn(rid, q.tl ?? '', q.tt ?? '1', q.tn);
    what = `TL/TT/TN ${q.tl ?? ''}/${q.tt ?? '1'}/${q.tn}`;
  } else {
    throw new FiscalError('#MISSING_FIELD', { field: 'fn (or tl, tt, tn where the country gives no FN)' });
  }
  // the latest transaction of that number (a TN is reused from year to year)
  const record = found.filter((r) => r.type === 'Tra').sort((a, b) => b.sq - a.sq)[0];
  if (!record) throw new FiscalError('#NOT_FOUND', { value: `transaction ${what} of ${reg.state.rn}` });
  return record;
}

/** GET /export?type=einvoice&fn=<FN>: the UBL XML of that invoice's e-invoice. */
export async function einvoiceExport(ctx: ServiceContext, reg: Register, q: Readonly<Record<string, string>>): Promise<ExportFile> {
  const record = await recordOf(ctx, reg, q);
  const data = JSON.parse(record.data) as Obj;
  if (!asksEinvoice(data)) throw new FiscalError('#NOT_FOUND', { value: `e-invoice of SQ ${record.sq}: the transaction is not an invoice with ESR.DD` });
  const xml = (await loadEinvoice(ctx.dataDir, reg.state.rn, record.sq)) ?? einvoiceXml({ ...data, SQ: String(record.sq) }, reg.state.cfg);
  const name = (record.fn ?? `${record.tl ?? ''}-${record.tt ?? ''}-${record.tn ?? ''}`).replace(/[^A-Za-z0-9._-]/g, '_');
  return { body: Buffer.from(xml, 'utf8'), file: `einvoice-${name}.xml`, contentType: 'application/xml' };
}

/**
 * The e-invoice of a committed transaction: made from its journal record (ESR and Fis, with the FN) and the
 * register's configuration, kept beside the journal (store.ts) for GET /export?type=einvoice, and handed to
 * its delivery (delivery.ts).
 */
import { FiscalError } from '../../shared/errors.js';
import { type Obj, isObj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import type { ExportFile } from '../fiscal/module.js';
import type { JournalRecord } from '../journal/types.js';
import type { Sealed } from '../record-answer.js';
import type { Register } from '../registers.js';
import { cfgAt } from '../render/receipt-source.js';
import { asksEinvoice, withEinvoiceAnswer } from './answers.js';
import { einvoiceXml } from './index.js';
import { loadEinvoice, saveEinvoice } from './store.js';

/** The invoice's record with its e-invoice's delivery in Fis.EInvoice, and the warning for the POS when it was not delivered. */
export interface Issued {
  sealed: Sealed;
  warning?: string;
}

/**
 * After the commit: the e-invoice is made, kept and delivered (ctx.einvoice, within eDoc_Timeout). It was
 * checked before journaling, so it cannot be refused here; a file that cannot be written is made again from
 * the journal when it is asked for (einvoiceExport). A duplicate gets the delivery journaled for the original.
 */
export async function issueEinvoice(ctx: ServiceContext, reg: Register, sealed: Sealed, duplicate: boolean): Promise<Issued> {
  if (!asksEinvoice(sealed.data)) return { sealed };
  const sq = Number(str(sealed.data, 'SQ'));
  if (duplicate) {
    const data = await withEinvoiceAnswer(ctx, reg, sq, sealed.data);
    return { sealed: data === sealed.data ? sealed : { ...sealed, data } };
  }
  // journaled already: from here on nothing may turn the answer into a failure
  let xml: string;
  try {
    xml = einvoiceXml(sealed.data, reg.state.cfg);
  } catch (e) {
    // checked before journaling with the same Cfg: only a Cfg changed in between gets here
    return { sealed, warning: `ESR.DD: the e-invoice could not be made: ${e instanceof Error ? e.message : String(e)}` };
  }
  try {
    await saveEinvoice(ctx.dataDir, reg.state.rn, sq, xml);
  } catch {
    // the export makes it from the record when the file is missing
  }
  let delivered;
  try {
    delivered = await ctx.einvoice?.online(reg, sealed, xml);
  } catch (e) {
    return { sealed, warning: `ESR.DD: the e-invoice was not delivered: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!delivered || !isObj(sealed.data.Fis)) return { sealed };
  const issued: Issued = { sealed: { ...sealed, data: { ...sealed.data, Fis: { ...sealed.data.Fis, EInvoice: delivered.fis } } } };
  if (delivered.warning !== undefined) issued.warning = delivered.warning;
  return issued;
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
  // a lost file is made again with the Cfg in force at the invoice, as its later delivery makes it: the document delivered
  const xml = (await loadEinvoice(ctx.dataDir, reg.state.rn, record.sq)) ?? einvoiceXml({ ...data, SQ: String(record.sq) }, await cfgAt(ctx, reg, record.sq));
  const name = (record.fn ?? `${record.tl ?? ''}-${record.tt ?? ''}-${record.tn ?? ''}`).replace(/[^A-Za-z0-9._-]/g, '_');
  return { body: Buffer.from(xml, 'utf8'), file: `einvoice-${name}.xml`, contentType: 'application/xml' };
}

/**
 * The e-invoice of a journaled invoice, made again from its record and the Cfg in force when it was made: what
 * a program outside the register service (the portal's digital receipt page) offers beside the receipt. It is
 * the document the service kept and delivered (src/register/einvoice/, docs/einvoicing.md), made by the same
 * code; it opens nothing of the service.
 */
import { type Obj, obj } from '../codec/index.js';
import { classify } from '../esr/business-case.js';
import { einvoiceDocument, invoiceNumber, wantsEinvoice } from '../einvoice/document.js';
import type { ReceiptRecord } from './receipt-view.js';

export interface EinvoiceDocument {
  /** UBL 2.1 XML */
  xml: string;
  /** BT-1: the FN, or TL/TT/TN */
  number: string;
}

/** Whether a receipt record has an e-invoice: a fiscal invoice with ESR.DD (not a training or non-fiscal one). */
export function hasEinvoice(record: ReceiptRecord): boolean {
  const esr = obj(record.data, 'ESR');
  return record.type === 'Tra' && esr !== undefined && wantsEinvoice(esr, classify(esr));
}

/** The e-invoice of a receipt record (an invoice with ESR.DD); undefined for any other record. */
export function einvoiceOfRecord(record: ReceiptRecord, cfg: Obj): EinvoiceDocument | undefined {
  const esr = obj(record.data, 'ESR');
  if (!esr || !hasEinvoice(record)) return undefined;
  // a journaled ESR names each position's tax group in its TaxA, so no country's letter table is needed
  return { xml: einvoiceDocument({ _: 'Tra', ...record.data }, cfg, {}), number: invoiceNumber(esr, obj(record.data, 'Fis')) };
}

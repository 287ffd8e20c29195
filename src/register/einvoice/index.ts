/**
 * E-invoicing of the registration pipeline: an invoice (ESR.Ctm, or DT invoice) with a delivery system
 * (ESR.DD) gets an EN 16931 e-invoice. checkEinvoice runs with the ESR's own checks, before anything is
 * journaled, and refuses (RC BAD, rule id and field) what would not make a valid one; issueEinvoice makes and
 * keeps it once the record is committed, with its fiscal number. docs/einvoicing.md.
 */
import type { Obj } from '../codec/index.js';
import { str } from '../codec/index.js';
import type { BusinessCase } from '../esr/business-case.js';
import { moduleFor } from '../fiscal/registry.js';
import { einvoiceDocument, einvoiceModel, invoiceNumber } from './document.js';

export { invoiceNumber, wantsEinvoice } from './document.js';

/**
 * Before journaling (normalized ESR): throws FiscalError (RC BAD) when the e-invoice cannot be made; answers
 * warnings for a DD that makes no e-invoice (not an invoice).
 */
export function checkEinvoice(esr: Obj, bc: BusinessCase, cfg: Obj): string[] {
  if (str(esr, 'DD') === undefined || !bc.fiscal) return [];
  if (!bc.flags.includes('invoice')) return [`ESR.DD: no e-invoice is made for a ${bc.kind} without ESR.Ctm (or DT invoice)`];
  einvoiceModel(esr, cfg, invoiceNumber(esr, undefined), moduleFor(cfg).letters);
  return [];
}

/** The e-invoice XML of a journaled transaction record (its data: ESR, Fis), with the configuration given. */
export function einvoiceXml(data: Obj, cfg: Obj): string {
  return einvoiceDocument(data, cfg, moduleFor(cfg).letters);
}

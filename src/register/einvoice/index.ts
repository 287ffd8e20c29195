/**
 * E-invoicing of the registration pipeline: an invoice (ESR.Ctm, or DT invoice) with a delivery system
 * (ESR.DD) gets an EN 16931 e-invoice. checkEinvoice runs with the ESR's own checks, before anything is
 * journaled, and refuses (RC BAD, rule id and field) what would not make a valid one; issueEinvoice makes and
 * keeps it once the record is committed, with its fiscal number. docs/einvoicing.md.
 */
import type { Obj } from '../codec/index.js';
import { obj, str } from '../codec/index.js';
import type { BusinessCase } from '../esr/business-case.js';
import { moduleFor } from '../fiscal/registry.js';
import { buildEinvoice } from './build.js';
import { checkCalculations } from './check.js';
import { checkPeppol } from './peppol-rules.js';
import { destinationOf } from './destination.js';
import type { Einvoice } from './model.js';
import { toUbl } from './ubl.js';

/** Whether a transaction asks for an e-invoice: a fiscal invoice with DD. */
export function wantsEinvoice(esr: Obj, bc: BusinessCase): boolean {
  return bc.fiscal && bc.flags.includes('einvoice') && bc.flags.includes('invoice') && str(esr, 'DD') !== undefined;
}

/** BT-1 of a journaled transaction: its FN, or TL/TT/TN where the country gives none. */
export function invoiceNumber(esr: Obj, fis: Obj | undefined): string {
  const fn = fis ? str(fis, 'FN') : undefined;
  if (fn) return fn;
  return [str(esr, 'TL') ?? '', str(esr, 'TT') ?? '', str(esr, 'TN') ?? ''].join('/');
}

function model(esr: Obj, cfg: Obj, id: string): Einvoice {
  const inv = buildEinvoice({ esr, cfg, destination: destinationOf(str(esr, 'DD') ?? ''), letters: moduleFor(cfg).letters, id });
  checkCalculations(inv);
  if (inv.syntax === 'peppol') checkPeppol(inv);
  return inv;
}

/**
 * Before journaling (normalized ESR): throws FiscalError (RC BAD) when the e-invoice cannot be made; answers
 * warnings for a DD that makes no e-invoice (not an invoice).
 */
export function checkEinvoice(esr: Obj, bc: BusinessCase, cfg: Obj): string[] {
  if (str(esr, 'DD') === undefined || !bc.fiscal) return [];
  if (!bc.flags.includes('invoice')) return [`ESR.DD: no e-invoice is made for a ${bc.kind} without ESR.Ctm (or DT invoice)`];
  model(esr, cfg, invoiceNumber(esr, undefined));
  return [];
}

/** The e-invoice XML of a journaled transaction record (its data: ESR, Fis), with the configuration given. */
export function einvoiceXml(data: Obj, cfg: Obj): string {
  const esr = obj(data, 'ESR') ?? {};
  return toUbl(model(esr, cfg, invoiceNumber(esr, obj(data, 'Fis'))));
}

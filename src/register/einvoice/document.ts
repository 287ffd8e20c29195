/**
 * The e-invoice of a transaction, without the service around it: which transactions ask for one, its number,
 * and the UBL document made from the ESR, the Cfg and the tax letters. index.ts adds the register's country
 * (its letters) and the checks before journaling; the rendering entry (render/einvoice-document.ts) makes the
 * document of a journaled record again for the portal.
 */
import type { Obj } from '../codec/index.js';
import { obj, str } from '../codec/index.js';
import type { BusinessCase } from '../esr/business-case.js';
import type { TaxLetters } from '../fiscal/tax-letters.js';
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

/** The checked EN 16931 model; FiscalError (RC BAD, rule id and field) when it breaks a rule. */
export function einvoiceModel(esr: Obj, cfg: Obj, id: string, letters: TaxLetters): Einvoice {
  const inv = buildEinvoice({ esr, cfg, destination: destinationOf(str(esr, 'DD') ?? ''), letters, id });
  checkCalculations(inv);
  if (inv.syntax === 'peppol') checkPeppol(inv);
  return inv;
}

/** The UBL XML of a journaled transaction record (its data: ESR, Fis) with the configuration and tax letters given. */
export function einvoiceDocument(data: Obj, cfg: Obj, letters: TaxLetters): string {
  const esr = obj(data, 'ESR') ?? {};
  return toUbl(einvoiceModel(esr, cfg, invoiceNumber(esr, obj(data, 'Fis')), letters));
}

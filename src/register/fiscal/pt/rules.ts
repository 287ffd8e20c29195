/**
 * What a Portuguese document needs beyond the generic rules, checked before anything is registered:
 * rates of the Portuguese tables only (a rate names its fiscal space), one tax group per position,
 * descriptions SAF-T accepts (2 to 200 characters), amounts in cents, an exemption code and reason on
 * every 0 % position (and only there), a valid NIF for a Portuguese customer, and the original document
 * (ESR.RFN, e.g. "FS A/12") on a credit note.
 */
import { FiscalError } from '../../../shared/errors.js';
import { ZERO, parseDec, significantScale } from '../../../shared/money.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { analyzePositions, isMod, isPos, resolveWithTaxA } from '../../esr/tax.js';
import { PT_LETTERS } from '../tax-letters.js';
import { splitTaxId, validNif } from './nif.js';
import { rateOf } from './rates.js';

/** The number of an original document: type, series and number. */
export const DOCUMENT_NO = /^(FS|FT|FR) [^ /^]+\/\d+$/;

function cents(value: string | undefined, field: string): void {
  if (value === undefined) return;
  const d = parseDec(value);
  if (d && significantScale(d) > 2) throw new FiscalError('#INVALID_VALUE', { field, detail: `"${value}": amounts of Portuguese documents are in cents (two decimals)` });
}

export function checkPortugueseRules(esr: Obj, bc: BusinessCase): void {
  if (!bc.fiscal) return;
  cents(str(esr, 'T'), 'ESR.T');
  const taxA = lines(esr, 'TaxA');
  taxA.forEach((tax, i) => {
    if (str(tax, 'TTY')) throw new FiscalError('#INVALID_VALUE', { field: `ESR.TaxA[${i}].TTY`, detail: 'taxes other than VAT are not supported for Portugal' });
    if (!rateOf(parseDec(str(tax, 'Prc') ?? '') ?? { v: -1n, s: 0 })) {
      throw new FiscalError('#INVALID_VALUE', { field: `ESR.TaxA[${i}].Prc`, detail: `${str(tax, 'Prc') ?? ''} % is not a Portuguese VAT rate (23, 13, 6, 0; Madeira 22, 12, 5; Azores 16, 9, 4)` });
    }
    for (const k of ['Net', 'TAmt', 'Amt']) cents(str(tax, k), `ESR.TaxA[${i}].${k}`);
  });
  lines(esr, 'PayA').forEach((pay, i) => cents(str(pay, 'Amt'), `ESR.PayA[${i}].Amt`));
  const posA = lines(esr, 'PosA');
  posA.forEach((line, i) => {
    if (isMod(line)) cents(str(line, 'Amt'), `ESR.PosA[${i}].Amt`);
  });
  for (const p of analyzePositions(posA)) {
    const pos = posA[p.index] as Obj;
    const field = `ESR.PosA[${p.index}]`;
    if (!isPos(pos)) continue;
    cents(str(pos, 'Amt'), `${field}.Amt`);
    if (p.groups.length !== 1) throw new FiscalError('#INVALID_VALUE', { field: `${field}.TaxG`, detail: 'a Portuguese document line has exactly one tax group' });
    const dsc = (str(pos, 'Dsc') ?? '').trim();
    if ([...dsc].length < 2 || [...dsc].length > 200) throw new FiscalError('#INVALID_VALUE', { field: `${field}.Dsc`, detail: 'SAF-T PT needs a description of 2 to 200 characters' });
    const tax = taxA[resolveWithTaxA(p.groups[0] as string, taxA, PT_LETTERS, `${field}.TaxG`)] as Obj;
    const zero = (parseDec(str(tax, 'Prc') ?? '') ?? ZERO).v === 0n;
    const code = str(pos, 'PT_TaxExemptionCode');
    const reason = str(pos, 'PT_TaxExemptionReason');
    if (zero) {
      if (!code) throw new FiscalError('#MISSING_FIELD', { field: `${field}.PT_TaxExemptionCode (a 0 % line needs the exemption code M01..M99)` });
      if (!reason) throw new FiscalError('#MISSING_FIELD', { field: `${field}.PT_TaxExemptionReason (a 0 % line needs the exemption reason)` });
    } else if (code !== undefined || reason !== undefined) {
      throw new FiscalError('#INVALID_VALUE', { field: `${field}.PT_TaxExemptionCode`, detail: `an exemption is given on a line taxed at ${str(tax, 'Prc') ?? ''} %` });
    }
    if (code !== undefined && !/^M\d{2}$/.test(code)) throw new FiscalError('#INVALID_VALUE', { field: `${field}.PT_TaxExemptionCode`, detail: `"${code}" is not an exemption code M01..M99` });
    if (reason !== undefined && ([...reason.trim()].length < 6 || [...reason.trim()].length > 60)) {
      throw new FiscalError('#INVALID_VALUE', { field: `${field}.PT_TaxExemptionReason`, detail: 'the exemption reason has 6 to 60 characters' });
    }
  }
  const ctm = obj(esr, 'Ctm');
  const taxId = ctm ? str(ctm, 'TaxId')?.trim() : undefined;
  if (ctm && taxId) {
    const { prefix, number } = splitTaxId(taxId);
    const ctry = (str(ctm, 'Ctry') ?? '').trim().toUpperCase();
    const portuguese = prefix === 'PT' || (prefix === undefined && (ctry === '' || ctry === 'PT'));
    if (portuguese && !validNif(number)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.Ctm.TaxId', detail: `"${taxId}" is not a valid Portuguese NIF (nine digits with check digit)` });
  }
  if (bc.kind === 'return' || bc.kind === 'void') {
    if (bc.flags.includes('test')) return;
    // the document corrected: by its number (RFN "FS A/12"), or by RTL/RTT/RTN of its transaction
    const rfn = str(esr, 'RFN')?.trim();
    if (!rfn && !str(esr, 'RTN')?.trim()) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.RFN (a credit note names the document it corrects, e.g. "FS A/12", or ESR.RTN)' });
    if (rfn && !DOCUMENT_NO.test(rfn)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: `"${rfn}" is not the number of an invoice (FS, FT or FR), e.g. "FS A/12"` });
  }
}

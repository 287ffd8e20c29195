/**
 * What a Portuguese document needs beyond the generic rules, checked before anything is registered:
 * rates of the Portuguese tables only (a rate names its fiscal space), one tax group per position,
 * descriptions SAF-T accepts (2 to 200 characters), amounts in cents, an exemption code and reason on
 * every 0 % position (and only there), a customer SAF-T can hold (country of its list, tax id of at most
 * 30 characters, a valid NIF for a Portuguese customer), one direction per document (a credit note gives
 * back, an invoice sells, per rate too), a paid fatura-recibo, and the original document (ESR.RFN, e.g.
 * "FS A/12", or RTL/RTT/RTN) on a credit note.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Dec, ZERO, add, fmtMoney, parseDec, sign, significantScale } from '../../../shared/money.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { analyzePositions, isMod, isPos, resolveWithTaxA } from '../../esr/tax.js';
import { PT_LETTERS } from './letters.js';
import { splitTaxId, validNif } from './nif.js';
import { countryCode } from './countries.js';
import { type PtRate, rateOf } from './rates.js';
import { docTypeOf } from './series.js';

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
  // the rate of each position, for the signs of the totals per rate
  const rateOfPosition: Array<[number, PtRate | undefined]> = [];
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
    rateOfPosition.push([p.index, rateOf(parseDec(str(tax, 'Prc') ?? '') ?? ZERO)]);
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
  checkCustomer(esr);
  if (!bc.flags.includes('test')) {
    checkSigns(esr, bc, taxA, rateOfPosition);
    checkReceipt(esr, bc);
  }
  if (bc.kind === 'return' || bc.kind === 'void') {
    if (bc.flags.includes('test')) return;
    // the document corrected: by its number (RFN "FS A/12"), or by RTL/RTT/RTN of its transaction
    const rfn = str(esr, 'RFN')?.trim();
    if (!rfn && !str(esr, 'RTN')?.trim()) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.RFN (a credit note names the document it corrects, e.g. "FS A/12", or ESR.RTN)' });
    if (rfn && !DOCUMENT_NO.test(rfn)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: `"${rfn}" is not the number of an invoice (FS, FT or FR), e.g. "FS A/12"` });
  }
}

/**
 * The customer as SAF-T PT and the QR code take it, checked before anything is signed: a country of the
 * schema's list (EL, the Greek VAT prefix, stands for GR), a tax id of at most 30 characters (the limit
 * of CustomerTaxID and of QR field B), a valid NIF for a Portuguese customer.
 */
function checkCustomer(esr: Obj): void {
  const ctm = obj(esr, 'Ctm');
  if (!ctm) return;
  const ctry = (str(ctm, 'Ctry') ?? '').trim();
  if (ctry && !countryCode(ctry)) {
    throw new FiscalError('#INVALID_VALUE', { field: 'ESR.Ctm.Ctry', detail: `"${ctry}" is not a country code of SAF-T PT (ISO 3166-1 alpha-2, e.g. ES, FR, GR)` });
  }
  const taxId = str(ctm, 'TaxId')?.trim();
  if (!taxId) return;
  const { prefix, number } = splitTaxId(taxId);
  const compact = `${prefix ?? ''}${number}`;
  if (compact.length > 30) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.Ctm.TaxId', detail: `"${taxId}" has ${compact.length} characters; SAF-T PT and the QR code allow 30` });
  if (!ctry && prefix !== undefined && !countryCode(prefix)) {
    throw new FiscalError('#MISSING_FIELD', { field: `ESR.Ctm.Ctry (the prefix ${prefix} of Ctm.TaxId is no country code)` });
  }
  const portuguese = prefix === 'PT' || (prefix === undefined && (ctry === '' || ctry.toUpperCase() === 'PT'));
  if (portuguese && !validNif(number)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.Ctm.TaxId', detail: `"${taxId}" is not a valid Portuguese NIF (nine digits with check digit)` });
}

/**
 * A document goes one way: an invoice sells, a credit note gives back. Its total and its totals per VAT
 * rate all have that sign (a credit note's are negative in the ESR); otherwise the signed GrossTotal,
 * the QR fields and the SAF-T amounts would be negative, which neither the AT nor the schema accept.
 * A sale with a take-back at another rate is two documents: an invoice and a credit note.
 */
function checkSigns(esr: Obj, bc: BusinessCase, taxA: readonly Obj[], rateOfPosition: ReadonlyArray<[number, PtRate | undefined]>): void {
  const credit = bc.kind === 'return' || bc.kind === 'void';
  const wrong = (d: Dec): boolean => (credit ? sign(d) > 0 : sign(d) < 0);
  const what = credit ? 'a credit note (return or void) gives back: its amounts are negative' : 'an invoice sells: its amounts are positive';
  const t = parseDec(str(esr, 'T') ?? '0') ?? ZERO;
  if (wrong(t)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.T', detail: `${str(esr, 'T') ?? ''}: ${what}` });
  const byRate = new Map<PtRate, Dec>();
  for (const tax of taxA) {
    const rate = rateOf(parseDec(str(tax, 'Prc') ?? '') ?? ZERO);
    if (!rate) continue;
    const amt = parseDec(str(tax, 'Amt') ?? str(tax, 'Net') ?? '0') ?? ZERO;
    byRate.set(rate, add(byRate.get(rate) ?? ZERO, amt));
  }
  for (const [rate, total] of byRate) {
    if (!wrong(total)) continue;
    const at = rateOfPosition.find(([, r]) => r === rate);
    throw new FiscalError('#INVALID_VALUE', {
      field: at ? `ESR.PosA[${at[0]}].Amt` : 'ESR.TaxA',
      detail: `the lines at ${rate.pct} % (${rate.region}) total ${fmtMoney(total)}: ${what}, also per rate; make two documents, an invoice and a credit note`,
    });
  }
}

/** A fatura-recibo is an invoice and its receipt: it is paid when issued, not on account (PayG open). */
function checkReceipt(esr: Obj, bc: BusinessCase): void {
  if (bc.kind === 'return' || bc.kind === 'void' || docTypeOf(esr, bc) !== 'FR') return;
  const pays = lines(esr, 'PayA');
  const open = pays.findIndex((p) => (str(p, 'PayG') ?? '').toLowerCase() === 'open');
  if (open >= 0) throw new FiscalError('#INVALID_VALUE', { field: `ESR.PayA[${open}].PayG`, detail: 'a fatura-recibo (DT FR) is paid when issued; a sale on account is a fatura (DT FT)' });
  if (!pays.some((p) => sign(parseDec(str(p, 'Amt') ?? '0') ?? ZERO) > 0)) {
    throw new FiscalError('#MISSING_FIELD', { field: 'ESR.PayA (a fatura-recibo, DT FR, names how it was paid)' });
  }
}

/**
 * A Portuguese document as SAF-T PT and the QR code see it, computed from the ESR: lines without tax
 * (the net amount of each tax element shared out exactly over its positions, after Mods), the tax per
 * rate, the totals, the customer and the payments. Amounts are oriented the document's way: positive
 * for what an invoice sells and for what a credit note gives back.
 */
import { createHash } from 'node:crypto';
import { type Dec, ZERO, abs, add, allocate, div, fmt, neg, parseDec, rescale, sign } from '../../../shared/money.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import { analyzePositions, isPos, qtyOf, resolveWithTaxA } from '../../esr/tax.js';
import { PT_LETTERS } from './letters.js';
import { countryCode } from './countries.js';
import { CONSUMIDOR_FINAL, splitTaxId } from './nif.js';
import { type PtRate, rateOf } from './rates.js';

export type DocType = 'FS' | 'FT' | 'FR' | 'NC';

export const DOC_NAMES: Readonly<Record<DocType, string>> = {
  FS: 'Fatura simplificada',
  FT: 'Fatura',
  FR: 'Fatura-recibo',
  NC: 'Nota de crédito',
};

export interface PtLine {
  number: number;
  productCode: string;
  /** the article's description (master data) */
  productDescription: string;
  /** this line's description */
  description: string;
  /** the public article number, when known */
  gtin?: string;
  quantity: Dec;
  unit: string;
  unitPrice: Dec;
  /** net amount, oriented: positive goes to the document's own column (credit for invoices, debit for credit notes) */
  net: Dec;
  rate: PtRate;
  exemption?: { code: string; reason: string };
}

export interface PtTax {
  rate: PtRate;
  net: Dec;
  tax: Dec;
}

export interface PtCustomer {
  id: string;
  taxId: string;
  name: string;
  address: string;
  city: string;
  zip: string;
  /** ISO 3166 code, or "Desconhecido" */
  country: string;
}

export interface PtAmounts {
  lines: PtLine[];
  taxes: PtTax[];
  netTotal: Dec;
  taxPayable: Dec;
  grossTotal: Dec;
  /** SAF-T payment mechanism → amount (positive sums only) */
  payments: Array<{ mechanism: string; amount: Dec }>;
}

/** +1 for invoices, -1 for credit notes (whose ESR amounts are negative). */
export function orientation(type: DocType): 1 | -1 {
  return type === 'NC' ? -1 : 1;
}

const orient = (d: Dec, o: 1 | -1): Dec => (o === 1 ? d : neg(d));

function dec2(text: string | undefined): Dec {
  return parseDec(text ?? '0') ?? ZERO;
}

/** A code for an article: its article number, else its GTIN, else its description (shortened with a digest past 60 characters). */
export function productCodeOf(pos: Obj): string {
  const sku = str(pos, 'SKU')?.trim();
  if (sku) return sku.slice(0, 60);
  const gtin = str(pos, 'IN')?.trim();
  if (gtin) return gtin.slice(0, 60);
  const dsc = (str(pos, 'Dsc') ?? '').trim();
  if (dsc.length <= 60) return dsc;
  return `${dsc.slice(0, 47)}~${createHash('sha1').update(dsc).digest('hex').slice(0, 12)}`;
}

const PAY_MECHANISM: Readonly<Record<string, string>> = {
  cash: 'NU', change: 'NU', refund: 'NU', foreign: 'NU', rounding: 'NU',
  atm: 'CD', debitcard: 'CD', creditcard: 'CC', mobile: 'DE', loyalty: 'DE',
  check: 'CH', title: 'TR', creditnote: 'CS',
};

/** The amounts of a document from its normalized ESR. */
export function amountsOf(esr: Obj, type: DocType): PtAmounts {
  const o = orientation(type);
  const posA = lines(esr, 'PosA');
  const taxA = lines(esr, 'TaxA').filter((t) => !str(t, 'TTY'));
  const positions = analyzePositions(posA);
  // positions per tax element, then each element's net shared out over them by their amounts
  const members: number[][] = taxA.map(() => []);
  positions.forEach((p, k) => {
    const token = p.groups[0] ?? '';
    const i = resolveWithTaxA(token, taxA, PT_LETTERS, `ESR.PosA[${p.index}].TaxG`);
    (members[i] as number[]).push(k);
  });
  const netOf = new Map<number, Dec>();
  const taxes: PtTax[] = [];
  taxA.forEach((tax, i) => {
    const rate = rateOf(dec2(str(tax, 'Prc')));
    if (!rate) return; // refused by validate
    const net = dec2(str(tax, 'Net'));
    const ks = members[i] as number[];
    const shares = allocate(rescale(net, 2), ks.map((k) => (positions[k] as { modified: Dec }).modified));
    ks.forEach((k, j) => netOf.set(k, shares[j] as Dec));
    const existing = taxes.find((t) => t.rate === rate);
    const n = orient(net, o);
    const t = orient(dec2(str(tax, 'TAmt')), o);
    if (existing) {
      existing.net = add(existing.net, n);
      existing.tax = add(existing.tax, t);
    } else taxes.push({ rate, net: n, tax: t });
  });
  const out: PtLine[] = [];
  positions.forEach((p, k) => {
    const pos = posA[p.index] as Obj;
    if (!isPos(pos)) return;
    const token = p.groups[0] ?? '';
    const rate = rateOf(dec2(str(taxA[resolveWithTaxA(token, taxA, PT_LETTERS, '')] ?? {}, 'Prc'))) as PtRate;
    const net = orient(netOf.get(k) ?? ZERO, o);
    const qty = abs(qtyOf(pos));
    const unitPrice = qty.v === 0n ? abs(net) : div(abs(net), qty, 6);
    const dsc = (str(pos, 'Dsc') ?? '').trim();
    const line: PtLine = {
      number: out.length + 1,
      productCode: productCodeOf(pos),
      productDescription: dsc,
      description: dsc,
      quantity: qty,
      unit: (str(pos, 'QtyU') ?? '').trim().slice(0, 20) || 'UN',
      unitPrice,
      net,
      rate,
    };
    const gtin = str(pos, 'IN')?.trim();
    if (gtin) line.gtin = gtin.slice(0, 60);
    const code = str(pos, 'PT_TaxExemptionCode')?.trim();
    const reason = str(pos, 'PT_TaxExemptionReason')?.trim();
    if (code && reason) line.exemption = { code, reason };
    out.push(line);
  });
  const netTotal = taxes.reduce((a, t) => add(a, t.net), ZERO);
  const taxPayable = taxes.reduce((a, t) => add(a, t.tax), ZERO);
  const grossTotal = orient(dec2(str(esr, 'T')), o);
  const byMechanism = new Map<string, Dec>();
  for (const pay of lines(esr, 'PayA')) {
    const g = (str(pay, 'PayG') ?? 'cash').toLowerCase();
    if (g === 'open') continue; // not paid
    const m = PAY_MECHANISM[g] ?? 'OU';
    byMechanism.set(m, add(byMechanism.get(m) ?? ZERO, orient(dec2(str(pay, 'Amt')), o)));
  }
  const payments = [...byMechanism].filter(([, a]) => sign(a) > 0).map(([mechanism, amount]) => ({ mechanism, amount }));
  return { lines: out, taxes, netTotal, taxPayable, grossTotal, payments };
}

const UNKNOWN = 'Desconhecido';

export const FINAL_CONSUMER: PtCustomer = { id: 'CF', taxId: CONSUMIDOR_FINAL, name: 'Consumidor final', address: UNKNOWN, city: UNKNOWN, zip: UNKNOWN, country: UNKNOWN };

/** The customer of a document: ESR.Ctm, else the consumidor final. */
export function customerOf(esr: Obj): PtCustomer {
  const ctm = obj(esr, 'Ctm');
  if (!ctm) return FINAL_CONSUMER;
  const text = (k: string): string => (str(ctm, k) ?? '').trim();
  const given = text('TaxId');
  const split = given ? splitTaxId(given) : undefined;
  // the country as sent (EL stands for GR), else the tax id's prefix, else PT for a bare NIF (checked in rules.ts)
  const country = countryCode(text('Ctry')) ?? (split?.prefix !== undefined ? countryCode(split.prefix) : undefined) ?? (split && split.prefix === undefined ? 'PT' : UNKNOWN);
  // a Portuguese NIF without its prefix; a foreign VAT number as given (without spaces)
  const taxId = !split ? CONSUMIDOR_FINAL : split.prefix === undefined || split.prefix === 'PT' ? split.number : `${split.prefix}${split.number}`;
  const name = [text('Nam'), text('Nam2')].filter(Boolean).join(' ').slice(0, 100) || UNKNOWN;
  // CustomerID has at most 30 characters: a tax id of 30 gets a digest instead of being cut (two would meet)
  const id = taxId !== CONSUMIDOR_FINAL
    ? taxId.length < 30 ? `C${taxId}` : `CX-${createHash('sha1').update(taxId).digest('hex').slice(0, 20)}`
    : `CN-${createHash('sha1').update(`${name}\n${text('Adr')}`).digest('hex').slice(0, 12)}`;
  return {
    id,
    taxId,
    name,
    address: [text('Adr'), text('AdrNr')].filter(Boolean).join(' ').slice(0, 210) || UNKNOWN,
    city: text('City').slice(0, 50) || UNKNOWN,
    zip: text('Zip').slice(0, 20) || UNKNOWN,
    country,
  };
}

/** The QR code's view of the customer: its number (without the country prefix) and country. */
export function qrCustomer(c: PtCustomer): { nif: string; country: string } {
  if (c.taxId === CONSUMIDOR_FINAL) return { nif: CONSUMIDOR_FINAL, country: c.country === UNKNOWN ? 'PT' : c.country };
  const { prefix, number } = splitTaxId(c.taxId);
  const country = c.country === UNKNOWN ? 'PT' : c.country;
  return { nif: prefix !== undefined && countryCode(prefix) === country ? number : c.taxId, country };
}

export function money2(d: Dec): string {
  return fmt(d, 2);
}

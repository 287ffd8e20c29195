/**
 * The eKasa receipt (ReceiptData of RegisterReceiptRequest) of a Slovak ESR: the receipt type (PD a cash
 * register receipt, UF the payment of an invoice: SK_InvoiceNumber), the paragon (a receipt written on paper
 * during an outage and registered afterwards: SK_ParagonNumber), the amount and the items: each position
 * (K, or V returned, O a correction of an earlier receipt, VP a voucher used, OZ an advance deducted, VO
 * returnable packaging) with its VAT rate, and its discounts (the Mods allocated to it) as Z items of the same
 * rate. Amounts have two decimals (more are refused); returns and voids keep their negative prices, quantities are positive.
 * The VAT totals (TaxBaseBasic etc.) are not sent: the financial administration asked the registers to leave
 * them out from 1 January 2025. docs/countries/sk.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Dec, abs, cmp, dec, fmt, parseDec, sign, significantScale, sub } from '../../../shared/money.js';
import { type Obj, lines, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { analyzePositions, isMod, isPos, qtyOf } from '../../esr/tax.js';
import { SK_LETTERS } from './letters.js';

export type ReceiptType = 'PD' | 'UF';
export type ItemType = 'K' | 'V' | 'O' | 'Z' | 'VP' | 'OZ' | 'VO';

export interface EkasaItem {
  name: string;
  itemType: ItemType;
  quantity: string;
  vatRate: string;
  price: string;
  referenceReceiptId?: string;
  voucherNumber?: string;
  specialRegulation?: string;
  sellerId?: string;
  sellerIdType?: 'ICDPH' | 'DIC';
}

export interface EkasaReceipt {
  receiptType: ReceiptType;
  receiptNumber: string;
  amount: string;
  /** local issue time `YYYY-MM-DDThh:mm:ss` (ESR.D) */
  issued: string;
  paragonNumber?: string;
  invoiceNumber?: string;
  customerId?: string;
  customerIdType?: 'ICO' | 'DIC' | 'ICDPH' | 'INE';
  items: EkasaItem[];
}

/**
 * What a request may hold (the project's reading of eKasa's request, docs/countries/sk.md, "Limits"): an
 * amount or price of at most ten million either way, a quantity above zero with at most four decimals, a VAT
 * rate from 0 to below 100 with at most two, at most 500 items, and as the original of a returned or
 * corrected item its receipt id (UID) or its OKP. A receipt beyond them is refused before it is journaled,
 * naming the field: after it, eKasa's refusal would leave a journaled receipt it never registers.
 */
const MAX_AMOUNT = dec('10000000');
const MAX_ITEMS = 500;
const REFERENCE_ID = /^(?:O-[0-9A-F]{32}|[0-9a-f]{8}(?:-[0-9a-f]{8}){4})$/i;

/**
 * An amount with exactly two decimals, within eKasa's range. One with more decimals is refused, not rounded:
 * items rounded one by one would no longer add up to the receipt's amount.
 */
export function amount2(text: string | undefined, field: string): string {
  const d = parseDec(text ?? '');
  if (!d) throw new FiscalError('#INVALID_VALUE', { field, detail: `not an amount: "${text ?? ''}"` });
  if (significantScale(d) > 2) throw new FiscalError('#INVALID_VALUE', { field, detail: `${text ?? ''}: eKasa amounts are in cents (two decimals)` });
  if (cmp(abs(d), MAX_AMOUNT) > 0) throw new FiscalError('#INVALID_VALUE', { field, detail: `${text ?? ''}: eKasa takes amounts up to ${fmt(MAX_AMOUNT)} either way` });
  return fmt(d, 2);
}

function rateText(d: Dec, field: string): string {
  const s = significantScale(d);
  if (sign(d) < 0 || cmp(d, dec('100')) >= 0 || s > 2) throw new FiscalError('#INVALID_VALUE', { field, detail: `VAT rate ${fmt(d)} %: eKasa takes 0 to below 100 with at most two decimals` });
  return fmt(d, s);
}

function quantityText(pos: Obj, field: string): string {
  const q = abs(qtyOf(pos));
  const s = significantScale(q);
  if (sign(q) === 0 || s > 4) throw new FiscalError('#INVALID_VALUE', { field: `${field}.Qty`, detail: `${str(pos, 'Qty') ?? ''}: eKasa takes a quantity above zero with at most four decimals` });
  return fmt(q, s);
}

/** The VAT rate of a position: its tax group's Prc in TaxA, a letter of the Slovak table, or `NN%`. */
function vatRateOf(esr: Obj, pos: Obj, field: string): string {
  const token = (str(pos, 'TaxG') ?? '').trim().split(/\s+/)[0] ?? '';
  const tax = lines(esr, 'TaxA').find((t) => str(t, 'TaxG') === token && !str(t, 'TTY'));
  const text = tax ? str(tax, 'Prc') : Object.hasOwn(SK_LETTERS, token) ? SK_LETTERS[token] : /^(\d+(?:\.\d+)?)%$/.exec(token)?.[1];
  const rate = parseDec(text ?? '');
  if (!rate) throw new FiscalError('#INVALID_VALUE', { field: `${field}.TaxG`, detail: `no VAT rate for tax group "${token}"` });
  return rateText(rate, `${field}.TaxG`);
}

/** The invoice a receipt pays (SK_InvoiceNumber of the ESR or of its positions, all the same); undefined for a PD. */
export function invoiceNumberOf(esr: Obj): string | undefined {
  const numbers = new Set<string>();
  const top = str(esr, 'SK_InvoiceNumber')?.trim();
  if (top) numbers.add(top);
  lines(esr, 'PosA').filter(isPos).forEach((p) => {
    const n = str(p, 'SK_InvoiceNumber')?.trim();
    if (n) numbers.add(n);
  });
  if (numbers.size > 1) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.SK_InvoiceNumber', detail: `one receipt pays one invoice (eKasa receipt type UF), got ${[...numbers].join(', ')}` });
  return numbers.size === 1 ? [...numbers][0] : undefined;
}

function itemTypeOf(pos: Obj, amt: Dec, bc: BusinessCase): ItemType {
  const pty = str(pos, 'PTY');
  const negative = sign(amt) < 0;
  if (pty === 'Vou' && negative) return 'VP';
  if (pty === 'Adv' && negative) return 'OZ';
  if (pty === 'Dep') return 'VO';
  if (!negative) return 'K';
  if (bc.kind === 'void') return 'O';
  if (bc.kind === 'return' || str(pos, 'RFN') !== undefined) return 'V';
  // a negative line without a reference: a discount given as a position of its own
  return 'Z';
}

function sellerOf(pos: Obj, field: string): Pick<EkasaItem, 'sellerId' | 'sellerIdType'> {
  const type = str(pos, 'SK_SellerIdType');
  const id = str(pos, 'SK_SellerId')?.trim();
  if (type === undefined || type === 'NONE') return {};
  if (type !== 'IC_DPH' && type !== 'DIC') throw new FiscalError('#INVALID_VALUE', { field: `${field}.SK_SellerIdType`, detail: `"${type}": IC_DPH, DIC or NONE` });
  if (!id) throw new FiscalError('#MISSING_FIELD', { field: `${field}.SK_SellerId` });
  if (type === 'IC_DPH') {
    if (!/^[A-Z]{2}[0-9A-Z]{2,13}$/.test(id)) throw new FiscalError('#INVALID_VALUE', { field: `${field}.SK_SellerId`, detail: `"${id}" is not a VAT number (IČ DPH)` });
    return { sellerId: id, sellerIdType: 'ICDPH' };
  }
  if (!/^\d{10}$/.test(id)) throw new FiscalError('#INVALID_VALUE', { field: `${field}.SK_SellerId`, detail: `"${id}" is not a DIČ (10 digits)` });
  return { sellerId: id, sellerIdType: 'DIC' };
}

function customerOf(esr: Obj): Pick<EkasaReceipt, 'customerId' | 'customerIdType'> {
  const ctm = esr.Ctm;
  if (ctm === undefined || typeof ctm !== 'object' || Array.isArray(ctm)) return {};
  const taxId = str(ctm as Obj, 'TaxId')?.replace(/\s+/g, '').toUpperCase();
  if (!taxId) return {};
  if (/^SK\d{10}$/.test(taxId)) return { customerId: taxId, customerIdType: 'ICDPH' };
  if (/^\d{10}$/.test(taxId)) return { customerId: taxId, customerIdType: 'DIC' };
  if (/^\d{8}$/.test(taxId)) return { customerId: taxId, customerIdType: 'ICO' };
  if (taxId.length > 40) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.Ctm.TaxId', detail: `"${taxId}": a customer id of at most 40 characters` });
  return { customerId: taxId, customerIdType: 'INE' };
}

export interface ReceiptInput {
  esr: Obj;
  bc: BusinessCase;
  /** the id of the original receipt a return or void names (its UID, else its OKP), from Fis.RefReceiptId */
  referenceReceiptId?: string;
}

/** The eKasa receipt of an ESR; throws FiscalError naming the field that cannot be mapped. */
export function ekasaReceiptOf(input: ReceiptInput): EkasaReceipt {
  const { esr, bc } = input;
  const issued = str(esr, 'D');
  if (!issued) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.D' });
  const receipt: EkasaReceipt = {
    receiptType: 'PD',
    receiptNumber: str(esr, 'TN') ?? '',
    amount: amount2(str(esr, 'T') ?? '0', 'ESR.T'),
    issued: issued.slice(0, 19),
    items: [],
    ...customerOf(esr),
  };
  const paragon = str(esr, 'SK_ParagonNumber')?.trim();
  if (paragon) receipt.paragonNumber = paragon;
  const invoice = invoiceNumberOf(esr);
  if (invoice !== undefined) {
    // the payment of an invoice names the invoice, not its items
    receipt.receiptType = 'UF';
    receipt.invoiceNumber = invoice;
    return receipt;
  }
  const posA = lines(esr, 'PosA');
  // a discount's share of a position has the decimals of the discount
  posA.forEach((line, i) => {
    if (isMod(line)) amount2(str(line, 'Amt') ?? '0', `ESR.PosA[${i}].Amt`);
  });
  const analysed = analyzePositions(posA);
  for (const info of analysed) {
    const pos = posA[info.index] as Obj;
    const field = `ESR.PosA[${info.index}]`;
    const itemType = itemTypeOf(pos, info.amt, bc);
    const vatRate = vatRateOf(esr, pos, field);
    const item: EkasaItem = {
      name: (str(pos, 'Dsc') ?? '').trim().slice(0, 255) || '-',
      itemType,
      quantity: quantityText(pos, field),
      vatRate,
      price: amount2(fmt(info.amt), `${field}.Amt`),
      ...sellerOf(pos, field),
    };
    if (itemType === 'V' || itemType === 'O') {
      if (!input.referenceReceiptId) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.RFiscal', detail: 'a returned or corrected item names the original receipt: its UID in RFiscal, or its FN in RFN' });
      if (!REFERENCE_ID.test(input.referenceReceiptId)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFiscal', detail: `"${input.referenceReceiptId}" is neither a receipt id of eKasa (O- and 32 hex digits) nor an OKP` });
      item.referenceReceiptId = input.referenceReceiptId;
    }
    const voucher = str(pos, 'VouN')?.trim();
    if (itemType === 'VP' && voucher) {
      if (voucher.length > 50) throw new FiscalError('#INVALID_VALUE', { field: `${field}.VouN`, detail: 'a voucher number of at most 50 characters' });
      item.voucherNumber = voucher;
    }
    const special = str(pos, 'SK_SpecialRegulation')?.trim();
    if (special) item.specialRegulation = special.slice(0, 255);
    receipt.items.push(item);
    const discount = sub(info.modified, info.amt);
    if (sign(discount) !== 0) receipt.items.push({ name: 'Zľava', itemType: 'Z', quantity: '1', vatRate, price: amount2(fmt(discount), `${field}.Amt`) });
  }
  if (receipt.items.length > MAX_ITEMS) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.PosA', detail: `${receipt.items.length} eKasa items (positions and their discounts): eKasa takes at most ${MAX_ITEMS} per receipt` });
  if (receipt.items.length === 0) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.PosA', detail: 'an eKasa cash register receipt (PD) has at least one item' });
  return receipt;
}

/**
 * The FURS InvoiceRequest of a journaled receipt (technical specification, message "Račun" / invoice; the
 * JSON schema in test/vectors/si-furs/FiscalVerificationSchema.json). Amounts are JSON numbers with two decimals,
 * written into the JSON text exactly (lossless-json numbers from decimal strings, never JS floats).
 * See docs/countries/si.md for the mapping of ESR fields.
 */
import { randomUUID } from 'node:crypto';
import { LosslessNumber, stringify } from 'lossless-json';
import { FiscalError } from '../../../shared/errors.js';
import { type Dec, ZERO, add, cmp, div, fmt, parseDec, round, sub } from '../../../shared/money.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { operatorOf, slovenianTaxNumber } from './tax-number.js';

export type JsonValue = string | boolean | LosslessNumber | JsonValue[] | { [key: string]: JsonValue };

const HUNDRED: Dec = { v: 100n, s: 0 };

/** A decimal text as a JSON number with exactly two decimals. */
export function amount(d: Dec): LosslessNumber {
  return new LosslessNumber(fmt(round(d, 2), 2));
}

function decOf(text: string | undefined, field: string): Dec {
  const d = text === undefined ? undefined : parseDec(text);
  if (!d) throw new FiscalError('#INVALID_VALUE', { field, detail: `a decimal number, got "${text ?? ''}"` });
  return d;
}

/** The company's tax number from Cfg.Cmp.TaxId; throws #INVALID_VALUE when it is not a Slovenian one. */
export function companyTaxNumber(cfg: Obj): string {
  const taxId = str(obj(cfg, 'Cmp') ?? {}, 'TaxId');
  const n = slovenianTaxNumber(taxId);
  if (!n) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: `the Slovenian tax number (8 digits, optionally with SI), got "${taxId ?? ''}"` });
  return n;
}

/** Identified for VAT: Cfg.Cmp.TaxId written as a VAT id (SI12345678). Decides where 0 % amounts are reported. */
export function identifiedForVat(cfg: Obj): boolean {
  return /^\s*SI/i.test(str(obj(cfg, 'Cmp') ?? {}, 'TaxId') ?? '');
}

/** The issue time of a receipt (what the ZOI and the QR code name): ESR.D, else Fis.D. */
export function issueTimeOf(esr: Obj, fis: Obj | undefined): string {
  const d = str(esr, 'D') ?? (fis ? str(fis, 'D') : undefined);
  if (!d) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.D' });
  return d.slice(0, 19);
}

/** The invoice total (InvoiceAmount and the amount in the ZOI): ESR.T, else the sum of the tax elements. */
export function invoiceTotal(esr: Obj): Dec {
  const t = str(esr, 'T');
  if (t !== undefined) return round(decOf(t, 'ESR.T'), 2);
  return round(lines(esr, 'TaxA').reduce((a, x) => add(a, decOf(str(x, 'Amt'), 'ESR.TaxA.Amt')), ZERO), 2);
}

/** TaxesPerSeller[0]: VAT per rate; 0 % as exempt (VAT payer) or non-taxable (not identified for VAT); other taxes. */
export function taxesOf(esr: Obj, vatPayer: boolean): { [key: string]: JsonValue } {
  const rates = new Map<string, { rate: Dec; net: Dec; tax: Dec }>();
  let zero: Dec | undefined;
  let other: Dec | undefined;
  lines(esr, 'TaxA').forEach((t, i) => {
    const field = `ESR.TaxA[${i}]`;
    const amt = decOf(str(t, 'Amt'), `${field}.Amt`);
    if (str(t, 'TTY')) {
      other = add(other ?? ZERO, amt);
      return;
    }
    const rate = decOf(str(t, 'Prc'), `${field}.Prc`);
    if (cmp(rate, ZERO) === 0) {
      zero = add(zero ?? ZERO, amt);
      return;
    }
    const netText = str(t, 'Net');
    // Net and TAmt are filled in by the service (completeTax); computed here only for records without them
    const netRounded = netText !== undefined ? decOf(netText, `${field}.Net`) : div(mul100(amt), add(HUNDRED, rate), 2);
    const tamtText = str(t, 'TAmt');
    const tax = tamtText !== undefined ? decOf(tamtText, `${field}.TAmt`) : sub(amt, netRounded);
    const key = fmt(round(rate, 2), 2);
    const was = rates.get(key);
    rates.set(key, { rate, net: add(was?.net ?? ZERO, netRounded), tax: add(was?.tax ?? ZERO, tax) });
  });
  const out: { [key: string]: JsonValue } = {};
  if (rates.size) {
    out.VAT = [...rates.values()].map((r) => ({ TaxRate: amount(r.rate), TaxableAmount: amount(r.net), TaxAmount: amount(r.tax) }));
  }
  if (zero) out[vatPayer ? 'ExemptVATTaxableAmount' : 'NontaxableAmount'] = amount(zero);
  if (other) out.OtherTaxesAmount = amount(other);
  return out;
}

function mul100(a: Dec): Dec {
  return { v: a.v * 100n, s: a.s };
}

/** The invoice a return or void corrects: RTL/RTT/RTN with RD (its issue time). */
function referenceOf(esr: Obj): JsonValue | undefined {
  const tl = str(esr, 'RTL');
  const tt = str(esr, 'RTT');
  const tn = str(esr, 'RTN');
  const rd = str(esr, 'RD');
  if (!tl || !tt || !tn || !rd || !/^\d{4}-\d{2}-\d{2}/.test(rd)) return undefined;
  const when = rd.length >= 19 ? rd.slice(0, 19) : `${rd.slice(0, 10)}T00:00:00`;
  return [{ ReferenceInvoiceIdentifier: { BusinessPremiseID: tl, ElectronicDeviceID: tt, InvoiceNumber: tn }, ReferenceInvoiceIssueDateTime: when }];
}

export interface InvoiceRequestInput {
  /** the journaled receipt {ESR, Fis, ...} */
  data: Obj;
  cfg: Obj;
  /** subsequent delivery (SubsequentSubmit) */
  later: boolean;
  now: Date;
  /** the Header.MessageID (default: a random UUID) */
  messageId?: string;
}

/** The InvoiceRequest as a JSON value (numbers exact). */
export function invoiceRequest(input: InvoiceRequestInput): { InvoiceRequest: { [key: string]: JsonValue } } {
  const esr = obj(input.data, 'ESR') ?? {};
  const fis = obj(input.data, 'Fis') ?? {};
  const zoi = str(fis, 'ZOI');
  if (!zoi) throw new FiscalError('#MISSING_FIELD', { field: 'Fis.ZOI' });
  const total = invoiceTotal(esr);
  const invoice: { [key: string]: JsonValue } = {
    TaxNumber: new LosslessNumber(companyTaxNumber(input.cfg)),
    IssueDateTime: issueTimeOf(esr, fis),
    NumberingStructure: 'B',
    InvoiceIdentifier: { BusinessPremiseID: str(esr, 'TL') ?? '', ElectronicDeviceID: str(esr, 'TT') ?? '', InvoiceNumber: str(esr, 'TN') ?? '' },
  };
  const customer = str(obj(esr, 'Ctm') ?? {}, 'TaxId')?.trim();
  if (customer && customer.length <= 20) invoice.CustomerVATNumber = customer;
  invoice.InvoiceAmount = amount(total);
  invoice.PaymentAmount = amount(total);
  invoice.TaxesPerSeller = [taxesOf(esr, identifiedForVat(input.cfg))];
  const oprTin = str(esr, 'OprTIN')?.trim();
  if (oprTin) {
    const op = operatorOf(oprTin);
    if ('taxNumber' in op) invoice.OperatorTaxNumber = new LosslessNumber(op.taxNumber);
    else invoice.ForeignOperator = true;
  }
  invoice.ProtectedID = zoi;
  invoice.SubsequentSubmit = input.later;
  const reference = referenceOf(esr);
  if (reference) invoice.ReferenceInvoice = reference;
  return {
    InvoiceRequest: {
      Header: { MessageID: input.messageId ?? randomUUID(), DateTime: formatLocalDateTime(input.now) },
      Invoice: invoice,
    },
  };
}

/** The JSON text of a request built with exact numbers. */
export function jsonText(value: JsonValue | { [key: string]: JsonValue }): string {
  const text = stringify(value);
  if (text === undefined) throw new Error('not serializable');
  return text;
}

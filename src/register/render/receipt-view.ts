/**
 * The view model of a receipt: everything a printed receipt shows, as display strings, built from a
 * journal record (or a record posted back to /render) and the register's configuration. The HTML
 * template, the text, ESC/POS and PDF renderers all read this one object, so that they show the same
 * thing. Strings only (flags are '1' or ''), so that a custom template needs no knowledge of the
 * document model; amounts are formatted from their decimal text, never through a JS number.
 */
import type { Lang } from '../../shared/errors.js';
import { type Dec, fmt, fmtMoney, parseDec, significantScale, sub, sum } from '../../shared/money.js';
import { type Obj, type Value, isObj, lines, obj, str } from '../codec/index.js';
import { classify } from '../esr/business-case.js';
import { type ReceiptLabels, decimalSeparatorOf, labelsOf } from './receipt-labels.js';

/** The record types /render draws. */
export type ReceiptType = 'Tra' | 'TraS' | 'Audit';
export const RECEIPT_TYPES: readonly ReceiptType[] = ['Tra', 'TraS', 'Audit'];

/** A journal record as /find and /tra show it (ESR, Fis, SQ, RN, TS, BC, Z; Audit for an audit record). */
export interface ReceiptRecord {
  type: ReceiptType;
  data: Obj;
}

export interface Field {
  label: string;
  value: string;
}

export interface PartyView {
  name: string;
  /** street line, zip and city line, country: the ones given */
  lines: string[];
  taxId: string;
  tin: string;
}

export interface ItemView {
  /** pos: a sold (or returned) article; mod: a discount or markup; lin: a print line */
  kind: 'pos' | 'mod' | 'lin';
  pn: string;
  description: string;
  /** "2 x 3.00" when the quantity is not one piece; else '' */
  quantity: string;
  amount: string;
  taxGroup: string;
  /** a modifier's percentage ("10 %"), else '' */
  percent: string;
  note: string;
  /** '1' for a line voided within the receipt */
  voided: string;
}

export interface TaxView {
  group: string;
  rate: string;
  net: string;
  tax: string;
  gross: string;
}

export interface PaymentView {
  description: string;
  amount: string;
  /** foreign currency amount, e.g. "USD 10.00" */
  foreign: string;
}

export interface TagView {
  name: string;
  label: string;
  value: string;
}

export interface ReceiptView {
  type: ReceiptType;
  lang: Lang;
  labels: ReceiptLabels;
  /** "Receipt", "Return", "Invoice"... in the register's language */
  title: string;
  /** the training marker, or '' */
  training: string;
  company: PartyView;
  location: PartyView;
  terminal: string;
  head: string[];
  foot: string[];
  date: string;
  /** TL, TT, TN, FN as label and value (the ones the record has) */
  ids: Field[];
  fn: string;
  items: ItemView[];
  total: string;
  payments: PaymentView[];
  taxes: TaxView[];
  /** every Fis.Tag: the law wants each printed with its label */
  tags: TagView[];
  /** further data of TraS, Z and Audit records */
  fields: Field[];
  /** Fis.Code: printed as a QR code */
  code: string;
  /** Fis.Link, printed as text */
  link: string;
  /** the QR code of `code` as a PNG data URL (for HTML), or '' */
  qr: string;
}

const TITLE_OF_KIND: Readonly<Record<string, keyof ReceiptLabels>> = {
  return: 'return', void: 'void', invoice: 'invoice', closing: 'closing', nonfiscal: 'nonfiscal', training: 'nonfiscal',
  payment: 'nonfiscal', login: 'nonfiscal', logout: 'nonfiscal', payin: 'nonfiscal', payout: 'nonfiscal', reprint: 'receipt', xreport: 'nonfiscal',
};

class Formatter {
  constructor(private readonly separator: string) {}

  private localized(text: string): string {
    return this.separator === '.' ? text : text.replace('.', this.separator);
  }

  /** Money with at least 2 decimals, exactly as recorded; text that is no decimal stays as it is. */
  amount(raw: string | undefined): string {
    if (raw === undefined || raw === '') return '';
    const d = parseDec(raw.trim());
    return d ? this.localized(fmtMoney(d)) : raw;
  }

  amountOf(d: Dec): string {
    return this.localized(fmtMoney(d));
  }

  /** A quantity or percentage without trailing zeros ("2", "1.5"). */
  number(raw: string | undefined): string {
    if (raw === undefined || raw === '') return '';
    const d = parseDec(raw.trim());
    return d ? this.localized(fmt(d, significantScale(d))) : raw;
  }

  percent(raw: string | undefined): string {
    const n = this.number(raw?.replace(/\s*%\s*$/, ''));
    return n ? `${n} %` : '';
  }
}

function textOf(v: Value | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** Head and Foot: `{Txt: "a\nb"}` as normalized, a plain string, or a list of `{Txt}` lines. */
function textLines(v: Value | undefined): string[] {
  let text = '';
  if (typeof v === 'string') text = v;
  else if (isObj(v)) text = textOf(v.Txt);
  else if (Array.isArray(v)) text = v.map((l) => (isObj(l) ? textOf(l.Txt) || textOf(l.value) : textOf(l))).join('\n');
  return text === '' ? [] : text.split(/\r?\n/);
}

function party(part: Obj | undefined): PartyView {
  if (!part) return { name: '', lines: [], taxId: '', tin: '' };
  const street = [str(part, 'Adr'), str(part, 'AdrNr')].filter(Boolean).join(' ');
  const city = [str(part, 'Zip'), str(part, 'City')].filter(Boolean).join(' ');
  return {
    name: str(part, 'Nam') ?? '',
    lines: [street, city, str(part, 'Ctry') ?? ''].filter((l) => l !== ''),
    taxId: str(part, 'TaxId') ?? '',
    tin: str(part, 'TIN') ?? '',
  };
}

function items(esr: Obj, f: Formatter): ItemView[] {
  return lines(esr, 'PosA').map((line): ItemView => {
    const type = str(line, '_') ?? 'Pos';
    const kind = type === 'Lin' ? 'lin' : type === 'Mod' || str(line, 'PTY') === 'Mod' ? 'mod' : 'pos';
    const base = { kind, pn: str(line, 'PN') ?? '', description: str(line, 'Dsc') ?? '', quantity: '', amount: '', taxGroup: '', percent: '', note: str(line, 'Note') ?? str(line, 'Info') ?? '', voided: str(line, 'Void') === '1' ? '1' : '' } satisfies ItemView;
    if (kind === 'lin') return { ...base, amount: str(line, 'LAmt') ?? '' };
    if (kind === 'mod') return { ...base, amount: f.amount(str(line, 'Amt')), percent: f.percent(str(line, 'Prc')), taxGroup: str(line, 'TaxG') ?? '' };
    const qty = str(line, 'Qty');
    const unit = str(line, 'QtyU') ?? '';
    const q = qty !== undefined ? parseDec(qty) : undefined;
    const onePiece = (q === undefined || q.v === 10n ** BigInt(q.s)) && unit === '';
    const quantity = onePiece ? '' : `${f.number(qty ?? '1')}${unit ? ` ${unit}` : ''}${str(line, 'Pri') ? ` x ${f.amount(str(line, 'Pri'))}` : ''}`;
    return { ...base, quantity, amount: f.amount(str(line, 'Amt')), taxGroup: str(line, 'TaxG') ?? '' };
  });
}

function total(esr: Obj, f: Formatter): string {
  const t = str(esr, 'T');
  if (t !== undefined) return f.amount(t);
  // a posted request without T: the positions add up to it (validation rule 1)
  const amounts = lines(esr, 'PosA').filter((l) => str(l, '_') !== 'Lin' && str(l, 'Void') !== '1').map((l) => parseDec(str(l, 'Amt') ?? ''));
  if (amounts.length === 0 || amounts.some((a) => a === undefined)) return '';
  return f.amountOf(sum(amounts as Dec[]));
}

/** Net of a tax line; computed as gross minus tax where it is not given (the Z's ZTax has none). */
function netOf(t: Obj, f: Formatter): string {
  const net = str(t, 'Net');
  if (net !== undefined) return f.amount(net);
  const gross = parseDec(str(t, 'Amt') ?? '');
  const tax = parseDec(str(t, 'TAmt') ?? '');
  return gross && tax ? f.amountOf(sub(gross, tax)) : '';
}

function taxes(taxLines: readonly Obj[], f: Formatter): TaxView[] {
  return taxLines.map((t): TaxView => {
    const tty = str(t, 'TTY');
    const group = [str(t, 'TaxG') ?? '', tty ?? ''].filter(Boolean).join(' ');
    // a non-VAT tax (TTY) has its base in Base and the tax itself in Amt
    if (tty) return { group, rate: f.percent(str(t, 'Prc')), net: f.amount(str(t, 'Base')), tax: f.amount(str(t, 'Amt')), gross: '' };
    return { group, rate: f.percent(str(t, 'Prc')), net: netOf(t, f), tax: f.amount(str(t, 'TAmt')), gross: f.amount(str(t, 'Amt')) };
  });
}

function payments(esr: Obj, f: Formatter): PaymentView[] {
  return lines(esr, 'PayA').map((p) => {
    const cc = str(p, 'CC');
    const famt = str(p, 'FAmt');
    return { description: str(p, 'Dsc') ?? str(p, 'PayG') ?? '', amount: f.amount(str(p, 'Amt')), foreign: famt ? `${cc ?? ''} ${f.amount(famt)}`.trim() : '' };
  });
}

function tags(fis: Obj | undefined): TagView[] {
  if (!fis) return [];
  return lines(fis, 'Tag').map((t) => ({ name: str(t, 'Name') ?? '', label: str(t, 'Label') ?? '', value: str(t, 'Value') ?? '' }));
}

/** Scalars and lists of an object as label/value pairs (the Z data, an audit record). */
function scalarFields(o: Obj, skip: readonly string[] = []): Field[] {
  const out: Field[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (k === '_' || skip.includes(k)) continue;
    if (typeof v === 'string') out.push({ label: k, value: v });
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out.push({ label: k, value: v.join('\n') });
  }
  return out;
}

/** Amounts among the Z's scalars (the rest are counts, dates and SQs). */
const Z_AMOUNTS: readonly string[] = ['T', 'CAmt', 'CreditAmt', 'DiscountAmt', 'SurchargeAmt'];

/** The lines of a report's figures (the Fis.Z of a Z, the Fis.X of an X report). */
function reportFields(report: Obj, kind: 'X' | 'Z', f: Formatter): Field[] {
  const out: Field[] = [];
  const amounts = new Set(['T', 'CreditAmt', 'DiscountAmt', 'SurchargeAmt']);
  for (const x of scalarFields(report)) {
    if (['ZI', 'TSDayOpen', 'TSDayClose', 'ZPeriod'].includes(x.label) || !['T', 'DrawerOpenCnt', 'CreditAmt', 'CreditCnt', 'DiscountCnt', 'DiscountAmt', 'SurchargeCnt', 'SurchargeAmt'].includes(x.label)) continue;
    out.push({ label: `${kind} ${x.label}`, value: amounts.has(x.label) ? f.amount(x.value) : x.value });
  }
  for (const t of lines(report, 'ZFisTraA')) out.push({ label: `${kind} ${str(t, 'Dsc') ?? ''} (${str(t, 'Cnt') ?? '0'})`, value: f.amount(str(t, 'Amt') ?? '0') });
  for (const p of lines(report, 'ZPayA')) out.push({ label: `${kind} ${str(p, 'Dsc') ?? ''}`, value: f.amount(str(p, 'Amt') ?? '0') });
  for (const t of lines(report, 'ZTaxA')) {
    const base = str(t, 'Net') ?? str(t, 'Base') ?? '0';
    out.push({ label: `${kind} ${str(t, 'TTY') ?? 'VAT'} ${str(t, 'Prc') ?? ''} %`, value: `${f.amount(base)} + ${f.amount(str(t, 'TAmt') ?? str(t, 'Amt') ?? '0')}` });
  }
  for (const c of lines(report, 'ZCatA')) out.push({ label: `${kind} ${str(c, 'CatN') ?? str(c, 'Cat') ?? ''}`, value: f.amount(str(c, 'Amt') ?? '0') });
  return out;
}

function displayDate(d: string): string {
  return d.replace('T', ' ');
}

export interface ViewInput {
  record: ReceiptRecord;
  /** the register's configuration when the record was made */
  cfg: Obj;
  lang: Lang;
  /** the QR image of Fis.Code as a data URL, when the caller makes one (HTML) */
  qr?: string;
}

export function receiptView({ record, cfg, lang, qr = '' }: ViewInput): ReceiptView {
  const f = new Formatter(decimalSeparatorOf(lang));
  const labels = labelsOf(lang);
  const { data, type } = record;
  const esr = obj(data, 'ESR') ?? {};
  const fis = obj(data, 'Fis');
  const loc = obj(cfg, 'Loc');
  const trm = obj(cfg, 'Trm');

  let title: string;
  if (type === 'TraS') title = labels.start;
  else if (type === 'Audit') title = labels.audit;
  else {
    const kind = str(data, 'BC') ?? classify(esr).kind;
    title = labels[(Object.hasOwn(TITLE_OF_KIND, kind) && TITLE_OF_KIND[kind]) || 'receipt'];
  }
  const training = str(esr, 'Test') === '1' || str(data, 'BC') === 'training' || str(esr, 'NFS')?.toUpperCase() === 'TRAINING' ? labels.training : '';

  const fn = (fis && str(fis, 'FN')) ?? str(esr, 'FN') ?? '';
  const ids: Field[] = [];
  const tl = str(esr, 'TL');
  const tt = str(esr, 'TT');
  const tn = str(esr, 'TN');
  if (tl) ids.push({ label: labels.location, value: tl });
  if (tt) ids.push({ label: labels.terminal, value: tt });
  if (tn) ids.push({ label: labels.tn, value: tn });
  if (fn) ids.push({ label: labels.fn, value: fn });

  const fields: Field[] = [];
  const tid = fis ? str(fis, 'TID') : undefined;
  if (type === 'TraS' && tid) fields.push({ label: 'TID', value: tid });
  const z = obj(data, 'Z');
  if (z) fields.push(...scalarFields(z).map((x) => ({ label: `Z ${x.label}`, value: Z_AMOUNTS.includes(x.label) ? f.amount(x.value) : x.label === 'LastD' ? displayDate(x.value) : x.value })));
  // the figures of an X or Z report (Fis.X, Fis.Z): per transaction kind, payment, VAT rate and category
  const report = fis ? (obj(fis, 'X') ?? obj(fis, 'Z')) : undefined;
  if (report) fields.push(...reportFields(report, str(data, 'BC') === 'xreport' ? 'X' : 'Z', f));
  const audit = obj(data, 'Audit');
  if (type === 'Audit' && audit) fields.push(...scalarFields(audit, ['Text']));

  const locParty = party(loc);
  const company = party(obj(cfg, 'Cmp'));
  return {
    type,
    lang,
    labels,
    title,
    training,
    company,
    // the location is printed when it says more than the company does
    location: locParty.name || locParty.lines.join() !== company.lines.join() ? locParty : party(undefined),
    terminal: trm ? [str(trm, 'TT'), str(trm, 'Serial') ? `(${str(trm, 'Serial') ?? ''})` : undefined].filter(Boolean).join(' ') : '',
    head: textLines(esr.Head),
    foot: textLines(esr.Foot),
    date: displayDate(str(esr, 'D') ?? str(data, 'TS') ?? ''),
    ids,
    fn,
    items: items(esr, f),
    total: type === 'Tra' ? total(esr, f) : '',
    payments: payments(esr, f),
    // a Z closure has no TaxA of its own: its tax table is the day's (Z.ZTax)
    taxes: taxes(lines(esr, 'TaxA').length || !z ? lines(esr, 'TaxA') : lines(z, 'ZTax'), f),
    tags: tags(fis),
    fields,
    code: (fis && str(fis, 'Code')) ?? '',
    link: (fis && str(fis, 'Link')) ?? '',
    qr,
  };
}

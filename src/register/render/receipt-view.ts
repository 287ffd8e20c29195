/**
 * The view model of a receipt: everything a printed receipt shows, as display strings, built from a
 * journal record (or a record posted back to /render) and the register's configuration. The HTML
 * template, the text, ESC/POS and PDF renderers all read this one object, so that they show the same
 * thing. Strings only (flags are '1' or ''), so that a custom template needs no knowledge of the
 * document model; amounts are formatted from their decimal text, never through a JS number.
 */
import type { Lang } from '../../shared/errors.js';
import { type Dec, parseDec, sum } from '../../shared/money.js';
import { type Obj, type Value, isObj, lines, obj, str } from '../codec/index.js';
import { classify } from '../esr/business-case.js';
import { Formatter } from './receipt-format.js';
import { type ItemView, items } from './receipt-items.js';
import { type ReceiptLabels, labelsOf } from './receipt-labels.js';
import { type ReportView, reportView } from './receipt-report.js';
import { type TaxView, taxes } from './receipt-taxes.js';
import { reportLabelsOf } from './report-labels.js';

export type { ItemView } from './receipt-items.js';
export type { ReportRow, ReportSection, ReportView } from './receipt-report.js';
export type { TaxView } from './receipt-taxes.js';

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
  /** street line, zip and city line: the ones given */
  lines: string[];
  /** the country's name in the receipt's language, where it is printed (see receiptView); else '' */
  country: string;
  taxId: string;
  tin: string;
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
  /** further data of TraS and Audit records */
  fields: Field[];
  /** the figures of an X or Z report, in sections; undefined for other records */
  report: ReportView | undefined;
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

/**
 * An invoice's e-invoice delivery as printed: the provider's status word and id, or why it was not delivered
 * (Fis.EInvoice as einvoice/answers.ts writes it).
 */
function einvoiceStatus(e: Obj, labels: ReceiptLabels): string {
  const status = str(e, 'Status') ?? '';
  const reason = str(e, 'Reason');
  let text: string;
  if (status === 'pending') text = labels.einvoicePending;
  else if (status === 'rejected') text = `${labels.einvoiceRejected}${reason ? `: ${reason}` : ''}`;
  else if (status === 'not sent') text = labels.einvoiceNotSent;
  else text = [status, str(e, 'Id')].filter(Boolean).join(' ');
  return str(e, 'Test') === '1' ? `${text} (${labels.einvoiceTest})` : text;
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

function party(part: Obj | undefined, f: Formatter): PartyView {
  if (!part) return { name: '', lines: [], country: '', taxId: '', tin: '' };
  const street = [str(part, 'Adr'), str(part, 'AdrNr')].filter(Boolean).join(' ');
  const city = [str(part, 'Zip'), str(part, 'City')].filter(Boolean).join(' ');
  return {
    name: str(part, 'Nam') ?? '',
    lines: [street, city].filter((l) => l !== ''),
    country: f.country(str(part, 'Ctry') ?? ''),
    taxId: str(part, 'TaxId') ?? '',
    tin: str(part, 'TIN') ?? '',
  };
}

function total(esr: Obj, f: Formatter): string {
  const t = str(esr, 'T');
  if (t !== undefined) return f.amount(t);
  // a posted request without T: the positions add up to it (validation rule 1)
  const amounts = lines(esr, 'PosA').filter((l) => str(l, '_') !== 'Lin' && str(l, 'Void') !== '1').map((l) => parseDec(str(l, 'Amt') ?? ''));
  if (amounts.length === 0 || amounts.some((a) => a === undefined)) return '';
  return f.amountOf(sum(amounts as Dec[]));
}

function payments(esr: Obj, f: Formatter): PaymentView[] {
  return lines(esr, 'PayA').map((p) => {
    const cc = str(p, 'CC');
    const famt = str(p, 'FAmt');
    return { description: str(p, 'Dsc') ?? str(p, 'PayG') ?? '', amount: f.amount(str(p, 'Amt')), foreign: famt ? `${cc ?? ''} ${f.amount(famt)}`.trim() : '' };
  });
}

/** The labels are the country module's words (the law's), with their rates localized; amounts and dates in the values too. */
function tags(fis: Obj | undefined, f: Formatter): TagView[] {
  if (!fis) return [];
  return lines(fis, 'Tag').map((t) => ({ name: str(t, 'Name') ?? '', label: f.tagLabel(str(t, 'Label') ?? ''), value: f.tagValue(str(t, 'Value') ?? '') }));
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

export interface ViewInput {
  record: ReceiptRecord;
  /** the register's configuration when the record was made */
  cfg: Obj;
  lang: Lang;
  /** the QR image of Fis.Code as a data URL, when the caller makes one (HTML) */
  qr?: string;
}

export function receiptView({ record, cfg, lang, qr = '' }: ViewInput): ReceiptView {
  const f = new Formatter(lang);
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
  const report = type === 'Tra' ? reportView(data, f) : undefined;
  if (report?.kind === 'X' || str(data, 'BC') === 'xreport') title = reportLabelsOf(lang).xreport;
  const audit = obj(data, 'Audit');
  if (type === 'Audit' && audit) fields.push(...scalarFields(audit, ['Text']));
  const einvoice = fis ? obj(fis, 'EInvoice') : undefined;
  if (type === 'Tra' && einvoice) fields.push({ label: labels.einvoice, value: einvoiceStatus(einvoice, labels) });

  const locParty = party(loc, f);
  const company = party(obj(cfg, 'Cmp'), f);
  // the location's country is said once, by the company, unless it is another
  if (locParty.country === company.country) locParty.country = '';
  return {
    type,
    lang,
    labels,
    title,
    training,
    company,
    // the location is printed when it says more than the company does
    location: locParty.name || locParty.lines.join() !== company.lines.join() || locParty.country ? locParty : party(undefined, f),
    terminal: trm ? [str(trm, 'TT'), str(trm, 'Serial') ? `(${str(trm, 'Serial') ?? ''})` : undefined].filter(Boolean).join(' ') : '',
    head: textLines(esr.Head),
    foot: textLines(esr.Foot),
    date: f.date(str(esr, 'D') ?? str(data, 'TS') ?? ''),
    ids,
    fn,
    items: items(esr, f),
    total: type === 'Tra' ? total(esr, f) : '',
    payments: payments(esr, f),
    // a report's tax table is the day's, in the report
    taxes: taxes(lines(esr, 'TaxA'), f),
    tags: tags(fis, f),
    fields,
    report,
    code: (fis && str(fis, 'Code')) ?? '',
    link: (fis && str(fis, 'Link')) ?? '',
    qr,
  };
}

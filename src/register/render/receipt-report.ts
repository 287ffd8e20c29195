/**
 * An X or Z report as a report: titled sections (the day, sales by kind, payments, VAT by rate,
 * categories, grand totals, counters) with labels in the receipt's language. The figures come from the
 * report element (Fis.X, Fis.Z) and, for what it does not hold, the closing's Z; a value both hold (the
 * total, the credit amount) is printed once. Internal figures (the journal's SQ) are not printed.
 */
import { type Obj, lines, obj, str } from '../codec/index.js';
import type { Formatter } from './receipt-format.js';
import { kindName, paymentName, reportLabelsOf } from './report-labels.js';
import { type TaxView, taxes } from './receipt-taxes.js';

export interface ReportRow {
  label: string;
  /** how many, for rows that count transactions; else '' */
  count: string;
  /** an amount for the amount column; else '' */
  amount: string;
  /** any other value (a date, a number range); else '' */
  value: string;
}

export interface ReportSection {
  /** '' for the report's opening rows */
  title: string;
  rows: ReportRow[];
  /** the VAT table of the section, else empty */
  taxes: TaxView[];
}

export interface ReportView {
  kind: 'X' | 'Z';
  sections: ReportSection[];
}

function row(label: string, fields: Partial<Omit<ReportRow, 'label'>>): ReportRow {
  return { label, count: fields.count ?? '', amount: fields.amount ?? '', value: fields.value ?? '' };
}

function hasValue(r: ReportRow): boolean {
  return r.count !== '' || r.amount !== '' || r.value !== '';
}

/** The report of a closing (Z) or X report record, or undefined for a record that is none. */
export function reportView(data: Obj, f: Formatter): ReportView | undefined {
  const fis = obj(data, 'Fis');
  const report = fis ? (obj(fis, 'X') ?? obj(fis, 'Z')) : undefined;
  const z = obj(data, 'Z');
  if (!report && !z) return undefined;
  const kind = str(data, 'BC') === 'xreport' || (fis && obj(fis, 'X')) ? 'X' : 'Z';
  const l = reportLabelsOf(f.lang);
  const r = report ?? {};
  const zz = z ?? {};
  const sections: ReportSection[] = [];
  const add = (title: string, rows: ReportRow[], taxRows: TaxView[] = []): void => {
    const shown = rows.filter(hasValue);
    if (shown.length || taxRows.length) sections.push({ title, rows: shown, taxes: taxRows });
  };

  add('', [
    row(l.zNumber, { value: kind === 'Z' ? (str(r, 'ZI') ?? '') : '' }),
    row(l.period, { value: f.date(str(r, 'ZPeriod')) }),
    row(l.opened, { value: f.date(str(r, 'TSDayOpen')) }),
    row(l.closed, { value: f.date(str(r, 'TSDayClose')) }),
    row(l.lastReceipt, { value: f.date(str(zz, 'LastD')) }),
  ]);
  add(l.sales, lines(r, 'ZFisTraA').map((t) => row(kindName(f.lang, str(t, 'Dsc') ?? ''), { count: str(t, 'Cnt') ?? '0', amount: f.amount(str(t, 'Amt') ?? '0') })));
  add(l.payments, lines(r, 'ZPayA').map((p) => row(paymentName(f.lang, str(p, 'Dsc') ?? ''), { amount: f.amount(str(p, 'Amt') ?? '0') })));
  const zTax = lines(r, 'ZTaxA');
  add(l.vat, [], taxes(zTax.length ? zTax : lines(zz, 'ZTax'), f));
  // one category without a name is the whole day again: shown only when the day has categories
  const cats = lines(r, 'ZCatA');
  if (cats.some((c) => str(c, 'Cat') || str(c, 'CatN'))) add(l.categories, cats.map((c) => row(str(c, 'CatN') || str(c, 'Cat') || l.noCategory, { amount: f.amount(str(c, 'Amt') ?? '0') })));
  add(l.totals, [
    row(l.turnover, { amount: f.amount(str(r, 'T') ?? str(zz, 'T')) }),
    row(l.credits, { count: str(r, 'CreditCnt') ?? '', amount: f.amount(str(r, 'CreditAmt') ?? str(zz, 'CAmt')) }),
    row(l.discounts, { count: str(r, 'DiscountCnt') ?? '', amount: f.amount(str(r, 'DiscountAmt')) }),
    row(l.surcharges, { count: str(r, 'SurchargeCnt') ?? '', amount: f.amount(str(r, 'SurchargeAmt')) }),
  ]);
  add(l.counters, [
    row(l.drawerOpenings, { value: str(r, 'DrawerOpenCnt') ?? '' }),
    ...lines(r, 'ZFisUnitA').map((u) => {
      const first = str(u, 'FirstNum') ?? '';
      const last = str(u, 'LastNum') ?? '';
      return row(l.receiptNumbers, { value: first === last ? first : `${first}-${last}` });
    }),
  ]);
  return { kind, sections };
}

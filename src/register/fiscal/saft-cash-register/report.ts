/**
 * SAF-T Cash Register: the X/Z report figures (`eventReport`) kept in one pass over the journal
 * (`ReportTally`). A report covers the records after the previous Z report up to the report record; its
 * grand totals cover every record of the register up to the report record. All amounts are exact
 * (src/shared/money.ts); training transactions count only as training; TaxA entries with TTY (consumption
 * taxes) are not VAT; returns on sales receipts count as returns. The VAT rates a report always lists and
 * their codes are the country's (ReportVat).
 */
import { type Dec, ZERO, abs, add, cmp, fmt, neg, rescale, sign, significantScale, sub, taxOfGross } from '../../../shared/money.js';
import { type Obj, lines, obj } from '../../codec/index.js';
import { OTHER_ART_GROUP, paymentTypeOf } from './codes.js';
import { type CashTx, amount, artGroupsOf, cashTxOf, money2, qtyOf, returnedOnSale, text, vatTaxA } from './records.js';
import { isMod, isPos } from '../../esr/tax.js';

/** A country's VAT in the reports: the rates every report lists, and a rate's code. */
export interface ReportVat {
  baseRates: readonly Dec[];
  vatCode(rate: Dec): { code: string };
}

export interface Counted {
  id: string;
  num: string;
  amnt: string;
}

/** The figures of one X or Z report, as written in `eventReport` (amounts with 2 decimals). */
export interface Report {
  reportId: string;
  kind: 'X report' | 'Z report';
  companyIdent: string;
  companyName: string;
  date: string;
  time: string;
  registerId: string;
  totalCashSale: string;
  /** per article group: id, number of items (sum of quantities), amount */
  artGroups: Counted[];
  /** per payment basicID */
  payments: Counted[];
  vat: Array<{ code: string; perc: string; base: string; vat: string; tp: 'C' | 'D' }>;
  openingFloat: string;
  receiptNum: number;
  openCashBoxNum: number;
  copyNum: number;
  copyAmnt: string;
  proformaNum: number;
  proformaAmnt: string;
  returnNum: number;
  returnAmnt: string;
  discountNum: number;
  discountAmnt: string;
  voidNum: number;
  voidAmnt: string;
  corrLines: Counted[];
  priceInquiries: Counted[];
  otherCorrs: Counted[];
  deliveryNum: number;
  deliveryAmnt: string;
  trainingNum: number;
  trainingAmnt: string;
  payIns: Counted[];
  payOuts: Counted[];
  grandTotalSales: string;
  grandTotalReturn: string;
  grandTotalNet: string;
}

export interface ReportInput {
  /** every record of the register from its first up to and including the report record (the last one) */
  records: readonly Obj[];
  /** index into records of the first record the report covers (the one after the previous Z report) */
  from: number;
  kind: 'X report' | 'Z report';
  reportId: string;
  company: { ident: string; name: string };
  registerId: string;
  /** YYYY-MM-DD and HH:mm:ss of the report */
  date: string;
  time: string;
}

/** What a report needs besides the figures. */
export type ReportMeta = Omit<ReportInput, 'records' | 'from'>;

/** The dummy entry the official example uses when a mandatory list has nothing to report. */
const NONE: Counted = { id: 'None', num: '0', amnt: '0.00' };

class Tally {
  private readonly m = new Map<string, { n: Dec; a: Dec }>();
  add(id: string, n: Dec, a: Dec): void {
    const cur = this.m.get(id) ?? { n: ZERO, a: ZERO };
    this.m.set(id, { n: add(cur.n, n), a: add(cur.a, a) });
  }
  list(numbers: 'int' | 'dec' = 'int'): Counted[] {
    return [...this.m.entries()].map(([id, { n, a }]) => ({
      id,
      num: numbers === 'int' ? fmt(rescale(n, 0), 0) : fmt(rescale(n, Math.min(6, significantScale(n)))),
      amnt: money2(a),
    }));
  }
  get size(): number {
    return this.m.size;
  }
}

const ONE: Dec = { v: 1n, s: 0 };

/** The figures of the records since the previous Z report (one report window). */
class Window {
  totalCashSale = ZERO;
  readonly artGroups = new Tally();
  readonly payments = new Tally();
  readonly vat = new Map<string, { rate: Dec; base: Dec; vat: Dec }>();
  openingFloat = ZERO;
  receiptNum = 0;
  openCashBoxNum = 0;
  copyNum = 0;
  copyAmnt = ZERO;
  returnNum = 0;
  returnAmnt = ZERO;
  discountNum = 0;
  discountAmnt = ZERO;
  voidNum = 0;
  voidAmnt = ZERO;
  readonly corrLines = new Tally();
  readonly priceInquiries = new Tally();
  readonly otherCorrs = new Tally();
  trainingNum = 0;
  trainingAmnt = ZERO;
  readonly payIns = new Tally();
  readonly payOuts = new Tally();
  firstTx = true;
  constructor(rates: readonly Dec[]) {
    for (const rate of rates) this.vat.set(fmt(rescale(rate, 3)), { rate, base: ZERO, vat: ZERO });
  }
}

/**
 * The X/Z report figures kept while walking a register's records once, in SQ order from its first record:
 * `add` each record, `report` at an X or Z record (after adding it), `closeWindow` after a Z. The window
 * holds the figures since the previous Z, the grand totals every sale and return so far; a copy's amount
 * is its original's total (`totals`: FN -> total of every cash transaction seen).
 */
export class ReportTally {
  private w: Window;
  private grandSales = ZERO;
  private grandReturn = ZERO;
  private readonly totals: Map<string, Dec>;

  /** `vat`: the country's rates and codes; totals: FN -> total, shared with the caller (filled here when the caller does not fill it) */
  constructor(private readonly vat: ReportVat, totals?: Map<string, Dec>, private readonly fillTotals = totals === undefined) {
    this.w = new Window(vat.baseRates);
    this.totals = totals ?? new Map();
  }

  add(r: Obj, tx: CashTx | undefined = cashTxOf(r)): void {
    const w = this.w;
    if (tx) {
      if (this.fillTotals) this.totals.set(tx.fn, tx.total);
      // grand totals: every sale and return of the register (returns on sales receipts as returns)
      if (tx.sale) {
        if (sign(tx.total) >= 0) {
          const returned = returnedOnSale(tx);
          this.grandSales = add(this.grandSales, add(tx.total, returned));
          this.grandReturn = add(this.grandReturn, returned);
        } else this.grandReturn = add(this.grandReturn, neg(tx.total));
      }
      const first = w.firstTx;
      w.firstTx = false;
      if (tx.training) {
        w.trainingNum += 1;
        w.trainingAmnt = add(w.trainingAmnt, tx.total);
        return;
      }
      if (tx.payin || tx.payout) {
        if (tx.payin && first) w.openingFloat = add(w.openingFloat, tx.total);
        else (tx.payin ? w.payIns : w.payOuts).add(tx.payin ? 'PAYIN' : 'PAYOUT', ONE, abs(tx.total));
        return;
      }
      w.totalCashSale = add(w.totalCashSale, tx.total);
      if (tx.void) {
        w.voidNum += 1;
        w.voidAmnt = add(w.voidAmnt, abs(tx.total));
      } else if (tx.ret) {
        w.returnNum += 1;
        w.returnAmnt = add(w.returnAmnt, abs(tx.total));
      } else {
        w.receiptNum += 1;
        // "including returns registered on sales receipts": one return per receipt, the amount of its RET lines
        const returned = returnedOnSale(tx);
        if (sign(returned) !== 0) {
          w.returnNum += 1;
          w.returnAmnt = add(w.returnAmnt, returned);
        }
      }
      const posA = lines(tx.esr, 'PosA').filter((l) => isPos(l) || isMod(l));
      const groups = artGroupsOf(posA);
      posA.forEach((line, i) => {
        const amt = amount(text(line, 'Amt'));
        if (isMod(line)) {
          w.artGroups.add(groups[i] as string, ZERO, amt);
          if (sign(amt) < 0 && !tx.void) {
            w.discountNum += 1;
            w.discountAmnt = add(w.discountAmnt, abs(amt));
          }
        } else {
          if (text(line, 'Void') === '1') {
            w.corrLines.add('Delete line', ONE, abs(amt));
            return;
          }
          w.artGroups.add(groups[i] as string, qtyOf(line), amt);
        }
      });
      for (const pay of lines(tx.esr, 'PayA')) {
        if ((text(pay, 'PayG') ?? '').toLowerCase() === 'rounding') continue;
        const isChange = (text(pay, 'PayG') ?? '').toLowerCase() === 'change';
        w.payments.add(paymentTypeOf(text(pay, 'PayG')), isChange ? ZERO : ONE, amount(text(pay, 'Amt')));
      }
      for (const t of vatTaxA(tx.esr)) {
        const rate = amount(text(t, 'Prc'));
        const key = fmt(rescale(rate, 3));
        const gross = amount(text(t, 'Amt'));
        const tAmt = text(t, 'TAmt') !== undefined ? amount(text(t, 'TAmt')) : taxOfGross(gross, rate, 2);
        const base = text(t, 'Net') !== undefined ? amount(text(t, 'Net')) : sub(gross, tAmt);
        const cur = w.vat.get(key) ?? { rate, base: ZERO, vat: ZERO };
        w.vat.set(key, { rate, base: add(cur.base, base), vat: add(cur.vat, tAmt) });
      }
      return;
    }
    if (r._ === 'Audit') {
      const audit = obj(r, 'Audit') ?? {};
      const type = text(audit, 'Type') ?? '';
      if (type === 'DrawerOpen') w.openCashBoxNum += 1;
      else if (type === 'PriceLookup') w.priceInquiries.add(OTHER_ART_GROUP, ONE, ZERO);
      else if (type === 'LineVoid') w.corrLines.add('Delete line', ONE, ZERO);
      else if (!['DrawerClose', 'TrainingOn', 'TrainingOff'].includes(type)) w.otherCorrs.add((type || 'Other').slice(0, 35), ONE, ZERO);
      return;
    }
    if (r._ === 'Tra' && (text(r, 'BC') ?? '').toLowerCase() === 'reprint') {
      const original = this.totals.get(text(obj(r, 'Fis'), 'RFN') ?? '');
      w.copyNum += 1;
      if (original) w.copyAmnt = add(w.copyAmnt, abs(original));
    }
  }

  /** A new window: the records after a Z report. */
  closeWindow(): void {
    this.w = new Window(this.vat.baseRates);
  }

  /** The report of the current window (and the grand totals so far). */
  report(meta: ReportMeta): Report {
    const w = this.w;
    const artList = w.artGroups.list('dec');
    const payList = w.payments.list();
    return {
      reportId: meta.reportId,
      kind: meta.kind,
      companyIdent: meta.company.ident,
      companyName: meta.company.name,
      date: meta.date,
      time: meta.time,
      registerId: meta.registerId,
      totalCashSale: money2(w.totalCashSale),
      artGroups: artList.length ? artList : [{ ...NONE, id: OTHER_ART_GROUP }],
      payments: payList.length ? payList : [{ ...NONE, id: 'CASH' }],
      vat: [...w.vat.values()]
        .sort((x, y) => cmp(x.rate, y.rate))
        .map((v) => ({
          code: this.vat.vatCode(v.rate).code,
          perc: fmt(rescale(v.rate, Math.min(3, Math.max(2, significantScale(v.rate))))),
          base: money2(v.base),
          vat: money2(v.vat),
          tp: sign(v.base) < 0 ? 'D' : 'C',
        })),
      openingFloat: money2(w.openingFloat),
      receiptNum: w.receiptNum,
      openCashBoxNum: w.openCashBoxNum,
      copyNum: w.copyNum,
      copyAmnt: money2(w.copyAmnt),
      proformaNum: 0,
      proformaAmnt: '0.00',
      returnNum: w.returnNum,
      returnAmnt: money2(w.returnAmnt),
      discountNum: w.discountNum,
      discountAmnt: money2(w.discountAmnt),
      voidNum: w.voidNum,
      voidAmnt: money2(w.voidAmnt),
      corrLines: w.corrLines.size ? w.corrLines.list() : [NONE],
      priceInquiries: w.priceInquiries.size ? w.priceInquiries.list() : [NONE],
      otherCorrs: w.otherCorrs.size ? w.otherCorrs.list() : [NONE],
      deliveryNum: 0,
      deliveryAmnt: '0.00',
      trainingNum: w.trainingNum,
      trainingAmnt: money2(w.trainingAmnt),
      payIns: w.payIns.size ? w.payIns.list() : [NONE],
      payOuts: w.payOuts.size ? w.payOuts.list() : [NONE],
      grandTotalSales: money2(this.grandSales),
      grandTotalReturn: money2(this.grandReturn),
      grandTotalNet: money2(sub(this.grandSales, this.grandReturn)),
    };
  }
}

/** The X or Z report figures (kassasystemforskrifta § 2-8-2/2-8-3 as the XSD's eventReport holds them) of one report, from the records. */
export function reportOf(input: ReportInput, vat: ReportVat): Report {
  const tally = new ReportTally(vat);
  input.records.forEach((r, i) => {
    if (i === input.from) tally.closeWindow();
    tally.add(r);
  });
  if (input.records.length <= input.from) tally.closeWindow();
  const { records: _records, from: _from, ...meta } = input;
  return tally.report(meta);
}

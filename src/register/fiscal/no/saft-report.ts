/**
 * Norway, SAF-T Cash Register: the code tables (basics, VAT codes, payment codes), how a journal
 * record reads as a signed cash transaction, and the X/Z report figures (`eventReport`) kept in one pass
 * over the journal (`ReportTally`). A report covers the records after the previous Z report up to the
 * report record; its grand totals cover every record of the register up to the report record. All amounts
 * are exact (src/shared/money.ts); training transactions count only as training; TaxA entries with TTY
 * (consumption taxes) are not VAT; returns on sales receipts count as returns.
 */
import { type Dec, ZERO, abs, add, cmp, dec, fmt, neg, parseDec, rescale, sign, significantScale, sub, taxOfGross } from '../../../shared/money.js';
import { type Obj, lines, obj } from '../../codec/index.js';

/** One entry of `company/basics`: basicType, our basicID, the official predefinedBasicID, a description. */
export interface Basic {
  type: string;
  id: string;
  predefined?: string;
  desc: string;
}

function b(type: string, id: string, predefined: string | undefined, desc: string): Basic {
  return predefined ? { type, id, predefined, desc } : { type, id, desc };
}

/** The basics this export can use, by basicID (only those used are written to the file). */
export const BASICS: Readonly<Record<string, Basic>> = Object.fromEntries(
  [
    b('05', 'SAL', undefined, 'Sale line'),
    b('05', 'RET', undefined, 'Return line'),
    b('05', 'DSC', undefined, 'Discount line'),
    b('11', 'CASHSAL', '11001', 'Cash sale'),
    b('11', 'RETURNSAL', '11006', 'Return sale'),
    b('11', 'PAYOUT', '11010', 'Out payment'),
    b('11', 'PAYIN', '11011', 'In payment'),
    b('11', 'OTHERTRANS', '11999', 'Other transaction'),
    b('12', 'CASH', '12001', 'Cash'),
    b('12', 'DEBCARD', '12002', 'Debit card'),
    b('12', 'CREDCARD', '12003', 'Credit card'),
    b('12', 'GIFTTOKEN', '12005', 'Gift token'),
    b('12', 'LOYALTY', '12007', 'Loyalty, stamps'),
    b('12', 'CHECK', '12009', 'Check'),
    b('12', 'CREDITNOTE', '12010', 'Credit note'),
    b('12', 'MOBILE', '12011', 'Mobile phone apps'),
    b('12', 'OTHERPAY', '12999', 'Other payment'),
    b('13', 'POSSTART', '13001', 'POS application start'),
    b('13', 'POSEND', '13002', 'POS application shut down'),
    b('13', 'EMPIN', '13003', 'Employee log in'),
    b('13', 'EMPOUT', '13004', 'Employee log out'),
    b('13', 'DRAWOPEN', '13005', 'Open cash drawer'),
    b('13', 'DRAWCLOSE', '13006', 'Close cash drawer'),
    b('13', 'XREP', '13008', 'X report'),
    b('13', 'ZREP', '13009', 'Z report'),
    b('13', 'SALREC', '13012', 'Sales receipt'),
    b('13', 'RETREC', '13013', 'Return receipt'),
    b('13', 'COPYREC', '13014', 'Copy receipt'),
    b('13', 'TRAINREC', '13017', 'Training receipt'),
    b('13', 'OTHERREC', '13018', 'Other receipt'),
    b('13', 'PRICELOOKUP', '13022', 'Price look-up'),
    b('13', 'TRAINON', '13023', 'Training mode on'),
    b('13', 'TRAINOFF', '13024', 'Training mode off'),
    b('13', 'VOIDREC', '13028', 'Void receipt'),
    b('13', 'LINEDELETE', '13999', 'Delete line'),
    b('13', 'OTHEREVT', '13999', 'Other event'),
  ].map((x) => [x.id, x]),
);

/** The article group used when a position has no Cat (PredefinedBasicID-04 "Other"). */
export const OTHER_ART_GROUP = '04999';

/** A PayG constant (spec) as a payment basicID; 'change' and 'foreign' are cash (12001 covers all currencies). */
export function paymentTypeOf(payG: string | undefined): string {
  switch ((payG ?? '').toLowerCase()) {
    case 'cash':
    case 'change':
    case 'foreign':
    case 'refund':
      return 'CASH';
    case 'debitcard':
      return 'DEBCARD';
    case 'creditcard':
      return 'CREDCARD';
    case 'mobile':
      return 'MOBILE';
    case 'voucher':
    case 'title':
      return 'GIFTTOKEN';
    case 'loyalty':
      return 'LOYALTY';
    case 'check':
      return 'CHECK';
    case 'creditnote':
      return 'CREDITNOTE';
    default:
      return 'OTHERPAY';
  }
}

/** A VAT rate's code in this file and its Norwegian standard VAT code (SAF-T standard tax codes). */
export interface VatCode {
  code: string;
  standard: string;
  desc: string;
  rate: Dec;
}

const STANDARD_RATES: ReadonlyArray<[string, string]> = [
  ['25', '3'],
  ['15', '31'],
  ['12', '33'],
  ['11.11', '32'],
  ['0', '5'],
];

/** The four rates every file declares (and every report lists): 0, 12, 15 and 25 %. */
export const REPORT_RATES: readonly Dec[] = ['0', '12', '15', '25'].map(dec);

export function vatCodeOf(rate: Dec): VatCode {
  const r = rescale(rate, Math.max(2, significantScale(rate)));
  const pct = fmt(r);
  const known = STANDARD_RATES.find(([p]) => cmp(dec(p), rate) === 0);
  // an unknown rate gets its own code in the file; its standard code is 0 (no VAT treatment) [to confirm]
  return known
    ? { code: known[1], standard: known[1], desc: `VAT ${pct} %`, rate }
    : { code: `R${pct}`.slice(0, 20), standard: '0', desc: `VAT ${pct} %`, rate };
}

/** A record field as text (numbers too: SQ may be a JSON number). */
export function text(o: Obj | undefined, key: string): string | undefined {
  const v = o?.[key] as unknown;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return undefined;
}

/** A decimal text as Dec, 0 when absent or not a decimal. */
export function amount(v: string | undefined): Dec {
  return (v === undefined ? undefined : parseDec(v.trim())) ?? ZERO;
}

/** Exactly two decimals, rounded half away from zero when the value has more. */
export function money2(d: Dec): string {
  return fmt(rescale(d, 2), 2);
}

/** How a journal record reads as a signed cash transaction. */
export interface CashTx {
  record: Obj;
  sq: string;
  bc: string;
  esr: Obj;
  fis: Obj;
  fn: string;
  /** ESR.T (else Fis.AmntIn) */
  total: Dec;
  training: boolean;
  void: boolean;
  ret: boolean;
  payin: boolean;
  payout: boolean;
  /** counts as a cash sale (or return): not training, not a pay-in or pay-out */
  sale: boolean;
}

/** The signed cash transaction a record is, or undefined (events, Audit, log, Cfg, unsigned Tra). */
export function cashTxOf(record: Obj): CashTx | undefined {
  if (record._ !== 'Tra') return undefined;
  const fis = obj(record, 'Fis');
  if (!fis || !text(fis, 'Signature') || !text(fis, 'FN')) return undefined;
  const esr = obj(record, 'ESR') ?? {};
  const bc = (text(record, 'BC') ?? '').toLowerCase();
  const flags = (text(record, 'BCF') ?? '').split(/\s+/);
  const training = flags.includes('test') || bc === 'training' || text(esr, 'Test') === '1' || text(fis, 'Training') === '1';
  const isVoid = bc === 'void' || text(esr, 'Void') === '1';
  const payin = bc === 'payin';
  const payout = bc === 'payout';
  const total = amount(text(esr, 'T') ?? text(fis, 'AmntIn'));
  const ret = !isVoid && !payin && !payout && (bc === 'return' || sign(total) < 0);
  return {
    record, sq: text(record, 'SQ') ?? '', bc, esr, fis, fn: text(fis, 'FN') ?? '', total,
    training, void: isVoid, ret, payin, payout, sale: !training && !payin && !payout,
  };
}

/** A training record (Test=1): never a report of the day, whatever its kind. */
function isTraining(record: Obj): boolean {
  return (text(record, 'BCF') ?? '').split(/\s+/).includes('test');
}

export function isZ(record: Obj): boolean {
  return record._ === 'Tra' && (text(record, 'BC') ?? '').toLowerCase() === 'closing' && !isTraining(record);
}

export function isX(record: Obj): boolean {
  return record._ === 'Tra' && (text(record, 'BC') ?? '').toLowerCase() === 'xreport' && !isTraining(record);
}

/** A Pos or Mod line's VAT: the rate of its TaxA entry (TaxG link), else a 'NN%' TaxG, else the only TaxA entry. */
export interface LineVat {
  rate: Dec;
  gross: Dec;
  vat: Dec;
  net: Dec;
}

export function rateOf(line: Obj, taxA: readonly Obj[]): Dec {
  const groups = (text(line, 'TaxG') ?? '').split(/\s+/).filter(Boolean);
  for (const g of groups) {
    const t = taxA.find((x) => text(x, 'TaxG') === g);
    if (t) return amount(text(t, 'Prc'));
    const pct = /^(\d+(?:\.\d+)?)%$/.exec(g);
    if (pct) return dec(pct[1] as string);
  }
  if (taxA.length === 1) return amount(text(taxA[0], 'Prc'));
  return ZERO;
}

export function lineVat(line: Obj, taxA: readonly Obj[]): LineVat {
  const rate = rateOf(line, taxA);
  const gross = rescale(amount(text(line, 'Amt')), 2);
  const vat = taxOfGross(gross, rate, 2);
  return { rate, gross, vat, net: sub(gross, vat) };
}

export function isModLine(line: Obj): boolean {
  return line._ === 'Mod' || (line._ === 'Pos' && text(line, 'PTY') === 'Mod');
}

export function isPosLine(line: Obj): boolean {
  return line._ === 'Pos' && text(line, 'PTY') !== 'Mod';
}

/** A position's quantity, the sign of its amount when Qty is absent. */
export function qtyOf(line: Obj): Dec {
  const q = text(line, 'Qty');
  const parsed = q === undefined ? undefined : parseDec(q.trim());
  if (parsed) return parsed;
  return { v: sign(amount(text(line, 'Amt'))) < 0 ? -1n : 1n, s: 0 };
}

/** A Pos.Cat as an article-group basicID: a predefined 04xxx code as it is, any other with the prefix `AG-`
 * (so that a Cat like 'SAL' or 'CASH' never collides with a built-in basicID). */
export function artGroupId(cat: string): string {
  return /^04\d{3}$/.test(cat) ? cat : `AG-${cat}`.slice(0, 35);
}

/** The article group (basicID) of each Pos/Mod line: Pos.Cat, a Mod's Cat or its position's, else 04999. */
export function artGroupsOf(posA: readonly Obj[]): string[] {
  const byPn = new Map<string, string>();
  let previous = OTHER_ART_GROUP;
  return posA.map((line) => {
    if (isModLine(line)) {
      const own = text(line, 'Cat');
      if (own) return artGroupId(own);
      const pn = (text(line, 'PN') ?? '').trim();
      return byPn.get(pn) ?? previous;
    }
    const cat = text(line, 'Cat');
    const g = cat ? artGroupId(cat) : OTHER_ART_GROUP;
    byPn.set((text(line, 'PN') ?? '').trim(), g);
    previous = g;
    return g;
  });
}

/** A Pos/Mod line's type, decided once from its amount rounded to 2 decimals: RET (a negative position), DSC (a negative modifier), else SAL. */
export function lineTypeOf(line: Obj): 'SAL' | 'RET' | 'DSC' {
  const negative = sign(rescale(amount(text(line, 'Amt')), 2)) < 0;
  if (!negative) return 'SAL';
  return isModLine(line) ? 'DSC' : 'RET';
}

/** The VAT entries of a receipt's TaxA: those without TTY (a TTY entry is a consumption tax, not VAT). */
export function vatTaxA(esr: Obj): Obj[] {
  return lines(esr, 'TaxA').filter((t) => !text(t, 'TTY'));
}

/** The positions returned on a sales receipt (RET lines of a receipt that is not itself a return or void): how many and their amount. */
export function returnedOnSale(tx: CashTx): Dec {
  if (tx.void || tx.ret || tx.payin || tx.payout) return ZERO;
  let total = ZERO;
  for (const line of lines(tx.esr, 'PosA')) {
    if (!isPosLine(line) || text(line, 'Void') === '1' || lineTypeOf(line) !== 'RET') continue;
    total = add(total, abs(rescale(amount(text(line, 'Amt')), 2)));
  }
  return total;
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
  constructor() {
    for (const rate of REPORT_RATES) this.vat.set(fmt(rescale(rate, 3)), { rate, base: ZERO, vat: ZERO });
  }
}

/**
 * The X/Z report figures kept while walking a register's records once, in SQ order from its first record:
 * `add` each record, `report` at an X or Z record (after adding it), `closeWindow` after a Z. The window
 * holds the figures since the previous Z, the grand totals every sale and return so far; a copy's amount
 * is its original's total (`totals`: FN -> total of every cash transaction seen).
 */
export class ReportTally {
  private w = new Window();
  private grandSales = ZERO;
  private grandReturn = ZERO;
  private readonly totals: Map<string, Dec>;

  /** totals: FN -> total, shared with the caller (filled here when the caller does not fill it) */
  constructor(totals?: Map<string, Dec>, private readonly fillTotals = totals === undefined) {
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
      const posA = lines(tx.esr, 'PosA').filter((l) => isPosLine(l) || isModLine(l));
      const groups = artGroupsOf(posA);
      posA.forEach((line, i) => {
        const amt = amount(text(line, 'Amt'));
        if (isModLine(line)) {
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
    this.w = new Window();
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
          code: vatCodeOf(v.rate).code,
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
export function reportOf(input: ReportInput): Report {
  const tally = new ReportTally();
  input.records.forEach((r, i) => {
    if (i === input.from) tally.closeWindow();
    tally.add(r);
  });
  if (input.records.length <= input.from) tally.closeWindow();
  const { records: _records, from: _from, ...meta } = input;
  return tally.report(meta);
}

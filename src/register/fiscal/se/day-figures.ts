/**
 * The figures of Sweden's X and Z reports (X-dagrapport, Z-dagrapport; SKVFS 2014:9 7 kap.), kept by the
 * module itself as the receipts pass through it (the register's country state, `se|day` since the last Z
 * and `se|gt` for ever), so that the report printed at once carries every figure the rules name, in
 * Swedish: sales, VAT per rate, payment means, number of receipts, returns, discounts, copies and training
 * receipts (count and amount), drawer openings, the change float's pay-ins and pay-outs, and the grand
 * totals of sales, returns and net. Amounts are exact decimal strings (src/shared/money.ts).
 */
import { type Dec, ZERO, abs, add, cmp, parseDec, sign, sub } from '../../../shared/money.js';
import { type Obj, lines, str } from '../../codec/index.js';
import { isMod } from '../../esr/tax.js';
import { percent } from '../saft-cash-register/format.js';
import { amount, money2, text, vatTaxA } from '../saft-cash-register/records.js';

interface Counted {
  n: number;
  amt: string;
}

export interface DayFigures {
  /** sales receipts (kassakvitton, returns and voids not included) */
  receipts: number;
  /** the day's net sales incl. VAT: receipts minus returns */
  net: string;
  returns: Counted;
  discounts: Counted;
  copies: Counted;
  training: Counted;
  /** the receipts paid (or given change) in cash, training receipts not, and every pay-in and pay-out */
  drawer: number;
  payIns: Counted;
  payOuts: Counted;
  /** VAT per rate (the rate as percent() writes it) */
  vat: Record<string, string>;
  /** per payment group (PayG as sent, lower-case) */
  pay: Record<string, string>;
}

export interface GrandFigures {
  sales: string;
  returns: string;
}

const DAY = 'se|day';
const GT = 'se|gt';

function emptyDay(): DayFigures {
  const c = (): Counted => ({ n: 0, amt: '0.00' });
  return { receipts: 0, net: '0.00', returns: c(), discounts: c(), copies: c(), training: c(), drawer: 0, payIns: c(), payOuts: c(), vat: {}, pay: {} };
}

const dec2 = (s: string | undefined): Dec => (s === undefined ? undefined : parseDec(s)) ?? ZERO;
const plus = (a: string, b: Dec): string => money2(add(dec2(a), b));
const count = (c: Counted, amt: Dec): Counted => ({ n: c.n + 1, amt: plus(c.amt, amt) });

export function dayOf(country: Readonly<Record<string, string>>): DayFigures {
  const raw = country[DAY];
  return raw ? { ...emptyDay(), ...(JSON.parse(raw) as Partial<DayFigures>) } : emptyDay();
}

export function grandOf(country: Readonly<Record<string, string>>): GrandFigures {
  const raw = country[GT];
  return raw ? (JSON.parse(raw) as GrandFigures) : { sales: '0.00', returns: '0.00' };
}

/** What a signed receipt is for the report. */
export type Counts = 'sale' | 'return' | 'training' | 'payin' | 'payout' | 'other';

/** Adds a signed receipt (its ESR) to the day and the grand totals. */
export function addReceipt(country: Record<string, string>, esr: Obj, as: Counts): void {
  const day = dayOf(country);
  const t = dec2(str(esr, 'T'));
  if (as === 'training') day.training = count(day.training, t);
  else if (as === 'payin') day.payIns = count(day.payIns, abs(t));
  else if (as === 'payout') day.payOuts = count(day.payOuts, abs(t));
  else if (as === 'sale' || as === 'return') {
    const gt = grandOf(country);
    if (as === 'return' || sign(t) < 0) {
      day.returns = count(day.returns, abs(t));
      gt.returns = plus(gt.returns, abs(t));
    } else {
      day.receipts += 1;
      gt.sales = plus(gt.sales, t);
    }
    day.net = plus(day.net, t);
    for (const m of lines(esr, 'PosA').filter(isMod)) {
      const amt = amount(text(m, 'Amt'));
      if (sign(amt) < 0 && as === 'sale') day.discounts = count(day.discounts, abs(amt));
    }
    for (const v of vatTaxA(esr)) {
      const gross = amount(text(v, 'Amt'));
      const tAmt = text(v, 'TAmt') !== undefined ? amount(text(v, 'TAmt')) : sub(gross, amount(text(v, 'Net')));
      const rate = percent(amount(text(v, 'Prc')));
      day.vat[rate] = plus(day.vat[rate] ?? '0.00', tAmt);
    }
    for (const p of lines(esr, 'PayA')) {
      const g = (str(p, 'PayG') ?? 'cash').toLowerCase();
      day.pay[g] = plus(day.pay[g] ?? '0.00', amount(text(p, 'Amt')));
    }
    country[GT] = JSON.stringify(gt);
  }
  if (as === 'payin' || as === 'payout' || (as !== 'training' && lines(esr, 'PayA').some((p) => ['cash', 'change', 'foreign', 'refund'].includes((str(p, 'PayG') ?? 'cash').toLowerCase())))) {
    day.drawer += 1;
  }
  country[DAY] = JSON.stringify(day);
}

/** Adds a copy (its original's total) to the day: a training one as a training receipt, not as a copy of a sale. */
export function addCopy(country: Record<string, string>, originalTotal: string | undefined, training = false): void {
  const day = dayOf(country);
  if (training) day.training = count(day.training, dec2(originalTotal));
  else day.copies = count(day.copies, abs(dec2(originalTotal)));
  country[DAY] = JSON.stringify(day);
}

/** A Z report closes the day: the next one starts from nothing (the grand totals go on). */
export function closeDay(country: Record<string, string>): void {
  delete country[DAY];
}

const PAYMENT_NAMES: Readonly<Record<string, string>> = {
  cash: 'Kontant', change: 'Växel', foreign: 'Utländsk valuta', refund: 'Återbetalning', debitcard: 'Betalkort', creditcard: 'Kreditkort',
  mobile: 'Mobil betalning', voucher: 'Presentkort', title: 'Värdebevis', loyalty: 'Bonus', check: 'Check', creditnote: 'Tillgodokvitto',
  rounding: 'Öresavrundning',
};

/** The report's lines, in Swedish, as Fis.Tag (Label and Value; the amounts with two decimals). */
export function reportTags(day: DayFigures, gt: GrandFigures): Obj[] {
  const tags: Obj[] = [];
  const tag = (name: string, label: string, value: string): void => {
    tags.push({ Name: name, Label: label, Value: value });
  };
  tag('Sales', 'Försäljning totalt', day.net);
  for (const [rate, vat] of Object.entries(day.vat).sort(([a], [b]) => cmp(dec2(a), dec2(b)))) tag('Vat', `Moms ${rate} %`, vat);
  for (const [g, amt] of Object.entries(day.pay).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) tag('Payment', PAYMENT_NAMES[g] ?? g, amt);
  tag('ReceiptCnt', 'Antal kvitton', String(day.receipts));
  tag('ReturnCnt', 'Returer, antal', String(day.returns.n));
  tag('ReturnAmt', 'Returer, belopp', day.returns.amt);
  tag('DiscountCnt', 'Rabatter, antal', String(day.discounts.n));
  tag('DiscountAmt', 'Rabatter, belopp', day.discounts.amt);
  tag('CopyCnt', 'Kvittokopior, antal', String(day.copies.n));
  tag('CopyAmt', 'Kvittokopior, belopp', day.copies.amt);
  tag('TrainingCnt', 'Övningskvitton, antal', String(day.training.n));
  tag('TrainingAmt', 'Övningskvitton, belopp', day.training.amt);
  // a figure the rules want on every report; the register makes no pro forma receipt (docs/countries/se.md)
  tag('ProformaCnt', 'Pro forma-kvitton, antal', '0');
  tag('ProformaAmt', 'Pro forma-kvitton, belopp', '0.00');
  tag('DrawerCnt', 'Lådöppningar', String(day.drawer));
  tag('PayIn', 'Växelkassa, insättningar', day.payIns.amt);
  tag('PayOut', 'Växelkassa, uttag', day.payOuts.amt);
  tag('GTSales', 'Grand total försäljning', gt.sales);
  tag('GTReturn', 'Grand total retur', gt.returns);
  tag('GTNet', 'Grand total netto', money2(sub(dec2(gt.sales), dec2(gt.returns))));
  return tags;
}

/**
 * Fills the defaults of a transaction (step 2 of the pipeline): D, TT/TL, TN, position numbers,
 * Qty and Pri, PayG, T and the TaxA elements. Runs after the shape check, so every known
 * amount is a valid decimal here.
 */
import { type Dec, abs, add, fmt, neg, parseDec, sign, significantScale, ZERO } from '../../shared/money.js';
import { type Obj, type Value, isObj, lines, str } from '../codec/index.js';
import type { TaxLetters } from '../fiscal/tax-letters.js';
import { formatLocalDateTime, yearOf } from './datetime.js';
import { analyzePositions, completeTax, generateTaxA, isMod, isPos, sumOf } from './tax.js';

export interface NormalizeContext {
  now: Date;
  letters: TaxLetters;
  /** number a missing TN (not for TraS: its TN belongs to the closing Tra) */
  assignTn?: boolean;
  /** The next automatic TN of TL/TT in the given year. */
  nextTn(tl: string, tt: string, year: number): string;
  /** eDoc_testNormalize: a plain 2-letter DD gets the suffix -TEST (the country's test delivery system) */
  testDd?: boolean;
}

/** DD as eDoc_testNormalize has it: a plain 2-letter value gets `-TEST`; any other value was chosen on purpose and stays. */
export function testDeliverySystem(dd: string): string {
  return /^[A-Za-z]{2}$/.test(dd) ? `${dd}-TEST` : dd;
}

export interface Normalized {
  esr: Obj;
  warnings: string[];
  generated: { D: boolean; TN: boolean };
}

/** TL and TT of a request, with the defaults and the `TL/TT` form applied (used before the full normalization too). */
export function identityOf(esr: Obj): { tl: string; tt: string } {
  let tt = str(esr, 'TT') ?? '';
  let tl = str(esr, 'TL') ?? '';
  if (!tl && tt.includes('/')) {
    const cut = tt.lastIndexOf('/');
    tl = tt.slice(0, cut);
    tt = tt.slice(cut + 1);
  }
  return { tl, tt: tt || '1' };
}

function textLines(v: Value | undefined): Value | undefined {
  if (!Array.isArray(v)) return v;
  const texts = v.filter(isObj).map((l) => str(l, 'value') ?? str(l, 'Txt') ?? '').filter((t) => t !== '');
  return { Txt: texts.join('\n') };
}

function scaleOf(values: Dec[]): number {
  return Math.max(2, ...values.map(significantScale));
}

/** Normalizes in place (the caller hands over the decoded ESR) and returns it. */
export function normalizeTra(esr: Obj, ctx: NormalizeContext): Normalized {
  const warnings: string[] = [];
  const generated = { D: false, TN: false };

  for (const key of ['Head', 'Foot']) {
    const v = textLines(esr[key]);
    if (v !== undefined) esr[key] = v;
  }

  const dd = str(esr, 'DD');
  if (ctx.testDd && dd !== undefined) esr.DD = testDeliverySystem(dd);

  const { tl, tt } = identityOf(esr);
  esr.TT = tt;
  if (tl) esr.TL = tl;

  if (!str(esr, 'D')) {
    esr.D = formatLocalDateTime(ctx.now);
    generated.D = true;
  }
  if (!str(esr, 'TN') && ctx.assignTn !== false) {
    esr.TN = ctx.nextTn(tl, tt, yearOf(esr.D as string));
    generated.TN = true;
  }

  const posA = lines(esr, 'PosA');
  let pn = 0;
  for (const line of posA) {
    if (!isPos(line)) continue;
    pn += 1;
    if (!str(line, 'PN')) line.PN = String(pn);
    // PT_TaxExemptionCode without TaxG: an exempt position, 0 %
    if (!str(line, 'TaxG')?.trim() && str(line, 'PT_TaxExemptionCode')?.trim()) line.TaxG = '0%';
    const amt = parseDec(str(line, 'Amt') ?? '') ?? ZERO;
    if (!str(line, 'Qty')) line.Qty = sign(amt) < 0 ? '-1' : '1';
    const qty = parseDec(line.Qty as string);
    if (!str(line, 'Pri') && qty && abs(qty).v === 10n ** BigInt(qty.s)) {
      line.Pri = fmt(sign(qty) < 0 ? neg(amt) : amt, Math.max(2, amt.s));
    }
  }
  if (posA.length) esr.PosA = posA;

  const payA = lines(esr, 'PayA');
  payA.forEach((pay, i) => {
    if (!str(pay, 'PayG')) {
      pay.PayG = 'cash';
      warnings.push(`PayA[${i}] has no PayG; treated as cash`);
    }
  });
  if (payA.length) esr.PayA = payA;

  const taxN = str(esr, 'TaxN') === '1';
  let taxA = lines(esr, 'TaxA');
  if (taxA.length === 0 && posA.some(isPos)) {
    taxA = generateTaxA(posA, ctx.letters, taxN);
    esr.TaxA = taxA;
  } else if (taxA.length) {
    taxA.forEach(completeTax);
    esr.TaxA = taxA;
  }

  if (!str(esr, 'T')) {
    if (taxN || !posA.some((l) => isPos(l) || isMod(l))) {
      if (taxA.length) esr.T = fmt(sumOf(taxA, 'Amt', (t) => !str(t, 'TTY')), scaleOf(taxA.map((t) => parseDec(str(t, 'Amt') ?? '0') ?? ZERO)));
    } else {
      const amounts = analyzePositions(posA).map((p) => p.modified);
      esr.T = fmt(amounts.reduce(add, ZERO), scaleOf(amounts));
    }
  }
  return { esr, warnings, generated };
}

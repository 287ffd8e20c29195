/**
 * The EN 16931 calculation rules an e-invoice made from an ESR could still break (the ESR's own rules are
 * checked before: esr/validate.ts), checked on the model before anything is journaled. Each failure names the
 * rule and the ESR field whose amounts it comes from. The full official rule set runs in the tests.
 */
import { type Dec, add, cmp, fmt, neg, sign, significantScale, sub, sum } from '../../shared/money.js';
import { ruleError } from './build.js';
import type { Einvoice } from './model.js';

function same(a: Dec, b: Dec): boolean {
  return cmp(a, b) === 0;
}

/** BR-DEC: an amount the document writes has at most two decimals; the writer would round it, and the totals would no longer add up. */
function twoDecimals(d: Dec, field: string, rule: string, term: string): void {
  if (significantScale(d) > 2) throw ruleError(field, rule, `The allowed maximum number of decimals for the ${term} is 2, got ${fmt(d)}`);
}

export function checkCalculations(inv: Einvoice): void {
  const t = inv.totals;
  inv.lines.forEach((l) => {
    twoDecimals(l.net, `ESR.PosA[${l.pos}]`, 'BR-DEC-23', 'Invoice line net amount (BT-131)');
    twoDecimals(l.allowance, `ESR.PosA[${l.pos}]`, sign(l.allowance) >= 0 ? 'BR-DEC-24' : 'BR-DEC-27', sign(l.allowance) >= 0 ? 'Invoice line allowance amount (BT-136)' : 'Invoice line charge amount (BT-141)');
  });
  for (const b of inv.vat) {
    twoDecimals(b.taxable, 'ESR.TaxA', 'BR-DEC-19', 'VAT category taxable amount (BT-116)');
    twoDecimals(b.tax, 'ESR.TaxA', 'BR-DEC-20', 'VAT category tax amount (BT-117)');
  }
  twoDecimals(t.prepaid, 'ESR.PayA', 'BR-DEC-16', 'Paid amount (BT-113)');
  twoDecimals(t.payable, 'ESR.PayA', 'BR-DEC-18', 'Amount due for payment (BT-115)');
  inv.lines.forEach((l) => {
    if (sign(l.price) < 0) throw ruleError(`ESR.PosA[${l.pos}].Pri`, 'BR-27', `Item net price (BT-146) ${fmt(l.price)} is negative`);
  });
  if (!same(t.lineNet, sum(inv.lines.map((l) => l.net)))) throw ruleError('ESR.PosA', 'BR-CO-10', 'Sum of Invoice line net amount (BT-106) differs from the line net amounts (BT-131)');
  inv.allowances.forEach((a) => twoDecimals(a.amount, 'ESR.PosA', a.charge ? 'BR-DEC-05' : 'BR-DEC-01', a.charge ? 'Document level charge amount (BT-99)' : 'Document level allowance amount (BT-92)'));
  if (!same(t.allowances, sum(inv.allowances.filter((a) => !a.charge).map((a) => a.amount)))) throw ruleError('ESR.PosA', 'BR-CO-11', 'Sum of allowances on document level (BT-107) differs from the document level allowance amounts (BT-92)');
  if (!same(t.charges, sum(inv.allowances.filter((a) => a.charge).map((a) => a.amount)))) throw ruleError('ESR.PosA', 'BR-CO-12', 'Sum of charges on document level (BT-108) differs from the document level charge amounts (BT-99)');
  if (!same(t.taxExclusive, add(sub(t.lineNet, t.allowances), t.charges))) throw ruleError('ESR.PosA', 'BR-CO-13', 'Invoice total amount without VAT (BT-109) differs from BT-106 - BT-107 + BT-108');
  if (!same(t.tax, sum(inv.vat.map((b) => b.tax)))) throw ruleError('ESR.TaxA', 'BR-CO-14', 'Invoice total VAT amount (BT-110) differs from the VAT category tax amounts (BT-117)');
  if (!same(t.taxInclusive, add(t.taxExclusive, t.tax))) throw ruleError('ESR.T', 'BR-CO-15', 'Invoice total amount with VAT (BT-112) differs from BT-109 + BT-110');
  if (!same(t.payable, sub(t.taxInclusive, t.prepaid))) throw ruleError('ESR.PayA', 'BR-CO-16', 'Amount due for payment (BT-115) differs from BT-112 - BT-113');
  for (const b of inv.vat) {
    const inCategory = <T extends { category: string; rate: Dec }>(x: T): boolean => x.category === b.category && same(x.rate, b.rate);
    const documentLevel = sum(inv.allowances.filter(inCategory).map((a) => (a.charge ? a.amount : neg(a.amount))));
    const lines = add(sum(inv.lines.filter(inCategory).map((l) => l.net)), documentLevel);
    const rule = `BR-${b.category}-08`;
    if (!same(lines, b.taxable)) throw ruleError('ESR.TaxA', rule, `VAT category taxable amount (BT-116) ${fmt(b.taxable)} at ${fmt(b.rate)} % differs from the sum of its line net amounts ${fmt(lines)}`);
    // BR-CO-17 allows a difference below one unit of the currency: the POS computes VAT from gross amounts
    const exact = { v: b.taxable.v * b.rate.v, s: b.taxable.s + b.rate.s + 2 };
    const diff = sub(b.tax, exact);
    if (cmp(diff.v < 0n ? { v: -diff.v, s: diff.s } : diff, { v: 1n, s: 0 }) >= 0) {
      throw ruleError('ESR.TaxA', 'BR-CO-17', `VAT category tax amount (BT-117) ${fmt(b.tax)} is not taxable amount × rate (${fmt(b.taxable)} × ${fmt(b.rate)} %)`);
    }
  }
}

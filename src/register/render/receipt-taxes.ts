/**
 * The tax table of a receipt or report: one row per tax group with rate, net, tax and gross, as display
 * strings; and the tax group an item names, read against that table.
 */
import { cmp, parseDec, sub } from '../../shared/money.js';
import { type Obj, str } from '../codec/index.js';
import type { Formatter } from './receipt-format.js';

export interface TaxView {
  group: string;
  rate: string;
  net: string;
  tax: string;
  gross: string;
}

/** Net of a tax line; computed as gross minus tax where it is not given (the Z's ZTax has none). */
function netOf(t: Obj, f: Formatter): string {
  const net = str(t, 'Net');
  if (net !== undefined) return f.amount(net);
  const gross = parseDec(str(t, 'Amt') ?? '');
  const tax = parseDec(str(t, 'TAmt') ?? '');
  return gross && tax ? f.amountOf(sub(gross, tax)) : '';
}

export function taxes(taxLines: readonly Obj[], f: Formatter): TaxView[] {
  return taxLines.map((t): TaxView => {
    const tty = str(t, 'TTY');
    const group = [str(t, 'TaxG') ?? '', tty ?? ''].filter(Boolean).join(' ');
    // a non-VAT tax (TTY) has its base in Base and the tax itself in Amt
    if (tty) return { group, rate: f.percent(str(t, 'Prc')), net: f.amount(str(t, 'Base')), tax: f.amount(str(t, 'Amt')), gross: '' };
    return { group, rate: f.percent(str(t, 'Prc')), net: netOf(t, f), tax: f.amount(str(t, 'TAmt')), gross: f.amount(str(t, 'Amt')) };
  });
}

/**
 * The tax group of an item as the tax table names it: a POS may name the group by its rate ("19%",
 * method 2 of the interface) while the table lists it under its letter; the item then shows the letter,
 * so that every item's group is as wide as the others' and reads against the table.
 */
export function groupOfItem(taxG: string, taxLines: readonly Obj[]): string {
  return taxG
    .split(/\s+/)
    .filter(Boolean)
    .map((g) => {
      if (taxLines.some((t) => str(t, 'TaxG') === g)) return g;
      const rate = /^(\d+(?:[.,]\d+)?)\s*%$/.exec(g)?.[1];
      const r = rate === undefined ? undefined : parseDec(rate.replace(',', '.'));
      if (!r) return g;
      const match = taxLines.find((t) => {
        const p = parseDec((str(t, 'Prc') ?? '').replace(/\s*%\s*$/, ''));
        return !str(t, 'TTY') && p !== undefined && cmp(p, r) === 0;
      });
      return (match && str(match, 'TaxG')) || g;
    })
    .join(' ');
}

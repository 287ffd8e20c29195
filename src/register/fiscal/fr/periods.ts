/**
 * The periods of the NF525 grand totals: the day (from one day closing, the POS's Z, to the
 * next), the calendar month and the fiscal year, which ends with the month `Fiscal_YearEnd`
 * (01-12, default 12) and is named by the calendar year it ends in.
 */
import { FiscalError } from '../../../shared/errors.js';

/** Fiscal_YearEnd: the month (1-12) that closes the fiscal year. */
export function yearEndOf(attributes: ReadonlyMap<string, string>): number {
  const v = attributes.get('fiscal_yearend');
  if (v === undefined || v === '') return 12;
  if (!/^(0?[1-9]|1[0-2])$/.test(v.trim())) throw new FiscalError('#INVALID_VALUE', { field: 'Fiscal_YearEnd', detail: `the month 01-12 that ends the fiscal year, got "${v}"` });
  return Number(v.trim());
}

/** `2026-03` of a date-time `2026-03-14T10:00:00`. */
export function monthOf(d: string): string {
  return d.slice(0, 7);
}

/** The fiscal year a date falls in, named by the year of its closing month: with year end 06, 2026-07 is in 2027. */
export function fiscalYearOf(d: string, yearEnd: number): string {
  const y = Number(d.slice(0, 4));
  const m = Number(d.slice(5, 7));
  return String(m > yearEnd ? y + 1 : y);
}

/** The months of a fiscal year, for the documents: `2026-07..2027-06`. */
export function fiscalYearSpan(label: string, yearEnd: number): string {
  const y = Number(label);
  const end = `${y}-${String(yearEnd).padStart(2, '0')}`;
  const start = yearEnd === 12 ? `${y}-01` : `${y - 1}-${String(yearEnd + 1).padStart(2, '0')}`;
  return `${start}..${end}`;
}

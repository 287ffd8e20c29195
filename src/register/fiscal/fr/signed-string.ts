/**
 * France (NF525): the texts the register's key signs, one layout per chain (docs/countries/fr.md,
 * "Signed strings"). Every text starts with the version `FR1` and the chain letter, names its
 * number in the chain and ends with the previous signature of the same chain, so that a record
 * cannot be removed, moved or changed without breaking the chain. Fields are joined by `;`; a `%`
 * or `;` inside a value is written `%25` or `%3B`, so that no value can shift the fields after it.
 */
import { type Dec, ZERO, add, cmp, fmt, parseDec, round } from '../../../shared/money.js';

export const VERSION = 'FR1';
/** The "previous signature" of the first record of every chain. */
export const GENESIS = 'GENESIS';

/** The chains: tickets, invoices, training tickets, duplicates, grand totals (closings), technical events (JET). */
export type ChainKind = 'T' | 'F' | 'M' | 'D' | 'G' | 'E';
export const CHAIN_NAMES: Readonly<Record<ChainKind, string>> = {
  T: 'ticket', F: 'facture', M: 'formation', D: 'duplicata', G: 'grand total', E: 'JET',
};

export function escapeField(v: string): string {
  return v.replace(/%/g, '%25').replace(/;/g, '%3B');
}

export function unescapeField(v: string): string {
  return v.replace(/%3B/g, ';').replace(/%25/g, '%');
}

/** The signed text of a chain record: `FR1;<kind>;<n>;<fields...>;<previous signature>`. */
export function signedString(kind: ChainKind, n: number, fields: readonly string[], prev: string): string {
  return [VERSION, kind, String(n), ...fields, prev].map(escapeField).join(';');
}

export function splitSignedString(text: string): string[] {
  return text.split(';').map(unescapeField);
}

/** An amount as signed: a point, exactly two decimals, a leading `-` when negative ("-12.30"). */
export function amount(d: Dec): string {
  return fmt(round(d, 2), 2);
}

/** A tax rate as signed: two decimals ("20.00", "5.50"). */
export function rate(d: Dec): string {
  return fmt(round(d, 2), 2);
}

/** Gross (TTC) amounts per tax rate, keyed by the rate as signed. */
export type TaxTotals = Map<string, Dec>;

/** `20.00:4.20/10.00:1.20`: rate and gross amount, by descending rate; '' when there is none. */
export function formatTaxes(t: TaxTotals): string {
  return [...t.entries()]
    .sort(([a], [b]) => cmp(parseDec(b) ?? ZERO, parseDec(a) ?? ZERO))
    .map(([r, a]) => `${r}:${amount(a)}`)
    .join('/');
}

export function parseTaxes(text: string): TaxTotals {
  const out: TaxTotals = new Map();
  if (text === '') return out;
  for (const part of text.split('/')) {
    const [r, a] = part.split(':');
    const amt = parseDec(a ?? '');
    if (r === undefined || !parseDec(r) || !amt) throw new Error(`not a tax total: ${part}`);
    out.set(r, amt);
  }
  return out;
}

export function addTaxes(a: TaxTotals, b: TaxTotals): TaxTotals {
  const out: TaxTotals = new Map(a);
  for (const [r, v] of b) out.set(r, add(out.get(r) ?? ZERO, v));
  return out;
}

/**
 * The printed extract of a signature: its characters 3, 7, 13 and 19 (base64url), a short
 * proof on paper that can be compared with the exported signature.
 */
export function signatureExtract(signature: string): string {
  return [3, 7, 13, 19].map((i) => signature.charAt(i - 1)).join('');
}

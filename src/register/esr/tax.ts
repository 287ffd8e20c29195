/**
 * The tax engine: assigns Mods to positions, resolves each position's tax group by the three
 * methods of the spec (group letter, percentage, link to a TaxA element) and sums the modified
 * position amounts per tax element. All arithmetic is exact.
 */
import { FiscalError } from '../../shared/errors.js';
import { type Dec, add, allocate, cmp, dec, eq, fmt, parseDec, sign, taxOfGross, taxOfNet, sub, sum, ZERO, significantScale } from '../../shared/money.js';
import { type Obj, str } from '../codec/index.js';
import type { TaxLetters } from '../fiscal/tax-letters.js';

export interface PositionInfo {
  /** index in PosA */
  index: number;
  pn: string;
  amt: Dec;
  /** the amount after Mods assigned to it */
  modified: Dec;
  groups: string[];
}

export function isMod(line: Obj): boolean {
  return line._ === 'Mod' || (line._ === 'Pos' && str(line, 'PTY') === 'Mod');
}

export function isPos(line: Obj): boolean {
  return line._ === 'Pos' && str(line, 'PTY') !== 'Mod';
}

/** What identifies an article across lines and receipts: its GTIN, else its article number, else its description. */
export function articleKey(pos: Obj): string {
  const inr = str(pos, 'IN');
  if (inr) return `IN:${inr}`;
  const sku = str(pos, 'SKU');
  if (sku) return `SKU:${sku}`;
  return `Dsc:${str(pos, 'Dsc') ?? ''}`;
}

/** A position's quantity (the sign of its amount when Qty is absent). */
export function qtyOf(pos: Obj): Dec {
  return parseDec(str(pos, 'Qty') ?? '') ?? (sign(amountOf(pos)) < 0 ? { v: -1n, s: 0 } : { v: 1n, s: 0 });
}

function amountOf(line: Obj): Dec {
  return parseDec(str(line, 'Amt') ?? '0') ?? ZERO;
}

/** The tax groups a position names: one letter as a rule, several separated by white space (method 3). */
function taxGroupsOf(taxG: string | undefined): string[] {
  if (taxG === undefined || taxG === '') return [];
  // the common case is taken as it is, without splitting: every position of every receipt passes here
  if (!/\s/.test(taxG)) return [taxG];
  return taxG.trim().split(/\s+/).filter(Boolean);
}

/** Which positions (by index into `positions`) a Mod's PN names; default the previous position. */
function modTargets(pnSpec: string | undefined, positions: PositionInfo[], byPn: ReadonlyMap<string, number[]>, previous: number, field: string): number[] {
  if (pnSpec === undefined || pnSpec.trim() === '') {
    if (previous < 0) throw new FiscalError('#MOD_TARGET', { field, value: '(previous position)' });
    return [previous];
  }
  const spec = pnSpec.trim();
  if (spec === '*') {
    if (positions.length === 0) throw new FiscalError('#MOD_TARGET', { field, value: '*' });
    return positions.map((_, i) => i);
  }
  const out = new Set<number>();
  for (const token of spec.split(/\s+/)) {
    const range = /^(\d{1,9})-(\d{1,9})$/.exec(token);
    let hits: number[];
    if (range) {
      const lo = Number(range[1]);
      const hi = Number(range[2]);
      hits = positions.flatMap((p, i) => {
        const n = Number(p.pn);
        return /^\d+$/.test(p.pn) && n >= lo && n <= hi ? [i] : [];
      });
    } else {
      hits = byPn.get(/^\d+$/.test(token) ? String(Number(token)) : token) ?? [];
    }
    if (hits.length === 0) throw new FiscalError('#MOD_TARGET', { field, value: token });
    hits.forEach((h) => out.add(h));
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * Positions of PosA with their Mod-modified amounts (Lin lines are display only). Positions are
 * collected first, so a Mod may name a position before or after it; a Mod without PN applies
 * to the position before it.
 */
export function analyzePositions(posA: Obj[]): PositionInfo[] {
  const positions: PositionInfo[] = [];
  const mods: Array<{ line: Obj; index: number; previous: number }> = [];
  posA.forEach((line, index) => {
    if (isPos(line)) {
      const amt = amountOf(line);
      positions.push({ index, pn: str(line, 'PN') ?? String(positions.length + 1), amt, modified: amt, groups: taxGroupsOf(str(line, 'TaxG')) });
    } else if (isMod(line)) {
      mods.push({ line, index, previous: positions.length - 1 });
    }
  });
  // PN -> positions (numeric PNs by their value, so "01" and "1" are the same position)
  // only Mods look positions up by PN
  const byPn = new Map<string, number[]>();
  if (mods.length > 0) positions.forEach((p, i) => {
    const key = /^\d+$/.test(p.pn) ? String(Number(p.pn)) : p.pn;
    const list = byPn.get(key) ?? [];
    list.push(i);
    byPn.set(key, list);
  });
  // Mods naming the same positions are added up and split once: linear in the size of the receipt
  const groups = new Map<string, { targets: number[]; amount: Dec }>();
  for (const { line, index, previous } of mods) {
    const targets = modTargets(str(line, 'PN'), positions, byPn, previous, `ESR.PosA[${index}].PN`);
    const key = targets.length === positions.length ? '*' : targets.join(',');
    const g = groups.get(key);
    if (g) g.amount = add(g.amount, amountOf(line));
    else groups.set(key, { targets, amount: amountOf(line) });
  }
  for (const { targets, amount } of groups.values()) {
    const shares = allocate(amount, targets.map((t) => (positions[t] as PositionInfo).amt));
    targets.forEach((t, k) => {
      const p = positions[t] as PositionInfo;
      p.modified = add(p.modified, shares[k] as Dec);
    });
  }
  return positions;
}

const PERCENT = /^(\d+(?:\.\d+)?)%$/;

export interface GroupRef {
  taxG: string;
  prc: string;
}

function letterRate(letters: TaxLetters, token: string): string | undefined {
  return Object.hasOwn(letters, token) ? letters[token] : undefined;
}

/** Resolves a position's tax group token without a TaxA: a letter of the table or a percentage. */
export function resolveWithoutTaxA(token: string, letters: TaxLetters, field: string): GroupRef {
  const rate = letterRate(letters, token);
  if (rate !== undefined) return { taxG: token, prc: rate };
  const m = PERCENT.exec(token);
  if (m) {
    const rate = dec(m[1] as string);
    const letter = Object.keys(letters).find((l) => eq(dec(letters[l] as string), rate));
    return { taxG: letter ?? token, prc: m[1] as string };
  }
  throw new FiscalError('#TAX_GROUP', { field, value: token });
}

/**
 * The index of the TaxA element a position's tax group token names (its TaxG, else a letter's or a
 * percentage's rate), -1 for none. A loop without closures: it runs for every position of every receipt.
 */
function taxIndexOf(token: string, taxA: Obj[], letters: TaxLetters): number {
  for (let i = 0; i < taxA.length; i++) if (str(taxA[i] as Obj, 'TaxG') === token) return i;
  const m = PERCENT.exec(token);
  const rateText = m ? m[1] : letterRate(letters, token);
  if (rateText !== undefined) {
    const rate = dec(rateText);
    return taxA.findIndex((t) => !str(t, 'TTY') && eq(parseDec(str(t, 'Prc') ?? '') ?? { v: -1n, s: 0 }, rate));
  }
  return -1;
}

/** Resolves a position's tax group token to the index of its TaxA element. */
export function resolveWithTaxA(token: string, taxA: Obj[], letters: TaxLetters, field: string): number {
  const i = taxIndexOf(token, taxA, letters);
  if (i < 0) throw new FiscalError('#TAX_GROUP', { field, value: token });
  return i;
}

function moneyScale(values: Dec[]): number {
  return Math.max(2, ...values.map(significantScale));
}

/** Generates TaxA from the positions (TaxA absent): one Tax per group, tax from gross (or net with TaxN). */
export function generateTaxA(posA: Obj[], letters: TaxLetters, taxN: boolean): Obj[] {
  const positions = analyzePositions(posA);
  const groups = new Map<string, { ref: GroupRef; amt: Dec }>();
  for (const p of positions) {
    if (p.groups.length > 1) {
      throw new FiscalError('#INVALID_VALUE', { field: `ESR.PosA[${p.index}].TaxG`, detail: `"${p.groups.join(' ')}" names several tax groups: send a TaxA element for each (method 3)` });
    }
    p.groups.forEach((g) => {
      const ref = resolveWithoutTaxA(g, letters, `ESR.PosA[${p.index}].TaxG`);
      const key = ref.taxG;
      const entry = groups.get(key) ?? { ref, amt: ZERO };
      entry.amt = add(entry.amt, p.modified);
      groups.set(key, entry);
    });
  }
  const s = moneyScale(positions.map((p) => p.modified));
  return [...groups.values()].map(({ ref, amt }) => {
    const rate = dec(ref.prc);
    if (taxN) {
      const tamt = taxOfNet(amt, rate, s);
      return { _: 'Tax', TaxG: ref.taxG, Prc: fmt(rate, Math.max(2, rate.s)), Net: fmt(amt, s), TAmt: fmt(tamt, s), Amt: fmt(add(amt, tamt), s) };
    }
    const tamt = taxOfGross(amt, rate, s);
    return { _: 'Tax', TaxG: ref.taxG, Prc: fmt(rate, Math.max(2, rate.s)), Net: fmt(sub(amt, tamt), s), TAmt: fmt(tamt, s), Amt: fmt(amt, s) };
  });
}

/** Fills Net and TAmt of a VAT tax element given only Amt and Prc. */
export function completeTax(tax: Obj): void {
  if (str(tax, 'TTY')) return;
  const amt = parseDec(str(tax, 'Amt') ?? '');
  const rate = parseDec(str(tax, 'Prc') ?? '');
  if (!amt || !rate) return;
  const s = Math.max(2, amt.s);
  const net = parseDec(str(tax, 'Net') ?? '');
  const tamt = parseDec(str(tax, 'TAmt') ?? '');
  if (net && !tamt) tax.TAmt = fmt(sub(amt, net), s);
  else if (tamt && !net) tax.Net = fmt(sub(amt, tamt), s);
  else if (!net && !tamt) {
    const t = taxOfGross(amt, rate, s);
    tax.TAmt = fmt(t, s);
    tax.Net = fmt(sub(amt, t), s);
  }
}

/** Per TaxA element, the sum of the modified amounts of the positions (analyzePositions) assigned to it. */
export function amountsPerTax(positions: readonly PositionInfo[], taxA: Obj[], letters: TaxLetters): Dec[] {
  const totals = taxA.map(() => ZERO);
  for (const p of positions) {
    for (const g of p.groups) {
      // the field's name only for a refusal
      const i = taxIndexOf(g, taxA, letters);
      if (i < 0) throw new FiscalError('#TAX_GROUP', { field: `ESR.PosA[${p.index}].TaxG`, value: g });
      totals[i] = add(totals[i] as Dec, p.modified);
    }
  }
  return totals;
}

export function sumOf(linesA: Obj[], key: string, filter: (o: Obj) => boolean = () => true): Dec {
  return sum(linesA.filter(filter).map((l) => parseDec(str(l, key) ?? '0') ?? ZERO));
}

export { cmp, eq };

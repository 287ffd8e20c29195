/**
 * Step 3 of the pipeline. `checkShape` runs first on the request as sent (types of every known
 * field, line types, mandatory fields); `checkRules` runs on the normalized transaction (the ten
 * validation rules of the spec, with exact decimals). Each failure throws a FiscalError naming its field.
 */
import { FiscalError } from '../../shared/errors.js';
import { type Dec, add, cmp, fmt, isDecimal, mul, neg, parseDec, round, sign, sub, ZERO } from '../../shared/money.js';
import { type Obj, type Value, isObj, lines, str } from '../codec/index.js';
import type { TaxLetters } from '../fiscal/tax-letters.js';
import { parseLocalDateTime, isDate, formatLocalDateTime } from './datetime.js';
import { type FieldType, ESR_FIELDS, LINE_FIELDS, LINE_REQUIRED, LINE_TYPES_OF, describe } from './fields.js';
import { amountsPerTax, analyzePositions, articleKey, isMod, isPos, qtyOf, sumOf } from './tax.js';
import type { BusinessCase } from './business-case.js';

/**
 * Where a field is, for the error only: `at` and `k`, or `at[index].k` for a line. Built when a check fails,
 * not for every field of every request.
 */
function fieldName(at: string, index: number, k: string): string {
  return index < 0 ? `${at}.${k}` : `${at}[${index}].${k}`;
}

function checkValue(at: string, index: number, k: string, value: Value, type: FieldType): void {
  if (typeof value !== 'string') {
    throw new FiscalError('#INVALID_TYPE', { field: fieldName(at, index, k), expected: describe(type), value: Array.isArray(value) ? '[...]' : '{...}' });
  }
  if (typeof type === 'object') {
    if (!type.enum.includes(value)) throw new FiscalError('#INVALID_TYPE', { field: fieldName(at, index, k), expected: describe(type), value });
    return;
  }
  switch (type) {
    case 'text':
      return;
    case 'money':
      if (!isDecimal(value)) throw new FiscalError('#INVALID_AMOUNT', { field: fieldName(at, index, k), value });
      return;
    case 'decimal':
      if (!isDecimal(value)) throw new FiscalError('#INVALID_TYPE', { field: fieldName(at, index, k), expected: describe(type), value });
      return;
    case 'int':
      if (!/^-?\d{1,15}$/.test(value)) throw new FiscalError('#INVALID_TYPE', { field: fieldName(at, index, k), expected: describe(type), value });
      return;
    case 'bool':
      if (value !== '0' && value !== '1') throw new FiscalError('#INVALID_TYPE', { field: fieldName(at, index, k), expected: describe(type), value });
      return;
    case 'datetime':
      if (!parseLocalDateTime(value)) throw new FiscalError('#INVALID_DATE', { field: fieldName(at, index, k), value });
      return;
    case 'date':
      if (!isDate(value)) throw new FiscalError('#INVALID_TYPE', { field: fieldName(at, index, k), expected: describe(type), value });
      return;
  }
}

/** The fields of `o` (at `at`, or line `index` of the container `at`) against their types. */
function checkFields(at: string, index: number, o: Obj, table: Readonly<Record<string, FieldType>>): void {
  for (const k in o) {
    const type = table[k];
    if (type !== undefined) checkValue(at, index, k, o[k] as Value, type);
  }
}

/** The most lines one PosA, PayA or TaxA may hold: far beyond any receipt, and bounds the work per request. */
export const MAX_LINES = 5000;

/** Types and mandatory fields of a Tra/TraS ESR as sent. */
export function checkShape(root: string, body: Obj): Obj {
  const esr = body.ESR;
  if (!isObj(esr)) throw new FiscalError('#MISSING_FIELD', { field: `${root}.ESR` });
  if (esr.FN !== undefined) throw new FiscalError('#FN_GIVEN');
  checkFields('ESR', -1, esr, ESR_FIELDS);
  for (const key of ['Ctm', 'SESR']) {
    if (esr[key] !== undefined && !isObj(esr[key])) {
      throw new FiscalError('#INVALID_TYPE', { field: `ESR.${key}`, expected: 'an object', value: String(esr[key]) });
    }
  }
  for (const key of ['Head', 'Foot']) {
    const v = esr[key];
    if (v !== undefined && typeof v === 'string') {
      throw new FiscalError('#INVALID_TYPE', { field: `ESR.${key}`, expected: 'an object {"Txt": ...}', value: v });
    }
  }
  for (const [container, allowed] of Object.entries(LINE_TYPES_OF)) {
    const v = esr[container];
    if (v === undefined) continue;
    const arr = Array.isArray(v) ? v : [v];
    if (arr.length > MAX_LINES) {
      throw new FiscalError('#INVALID_VALUE', { field: `ESR.${container}`, detail: `at most ${MAX_LINES} lines, got ${arr.length}` });
    }
    const defaultType = allowed[0] as string;
    const at = `ESR.${container}`;
    arr.forEach((line, i) => {
      if (!isObj(line)) throw new FiscalError('#INVALID_TYPE', { field: `${at}[${i}]`, expected: 'an object', value: String(line) });
      if (line._ === undefined) line._ = defaultType;
      const type = str(line, '_') ?? '';
      if (!allowed.includes(type)) {
        throw new FiscalError('#INVALID_TYPE', { field: fieldName(at, i, '_'), expected: `one of ${allowed.join(', ')}`, value: type });
      }
      checkFields(at, i, line, LINE_FIELDS[type] ?? {});
      let required = type === 'Pos' && str(line, 'PTY') === 'Mod' ? (LINE_REQUIRED.Mod ?? []) : (LINE_REQUIRED[type] ?? []);
      // a Portuguese exemption code stands for the tax group (0 %): the spec's alternative to TaxG
      const exemption = type === 'Pos' ? str(line, 'PT_TaxExemptionCode')?.trim() : undefined;
      if (exemption && !/^M\d{2}$/.test(exemption)) throw new FiscalError('#INVALID_VALUE', { field: fieldName(at, i, 'PT_TaxExemptionCode'), detail: `an exemption code M01..M99, got "${exemption}"` });
      if (exemption) required = required.filter((r) => r !== 'TaxG');
      for (const r of required) {
        if ((str(line, r) ?? '').trim() === '') throw new FiscalError('#MISSING_FIELD', { field: fieldName(at, i, r) });
      }
    });
    esr[container] = arr;
  }
  return esr;
}

export interface RuleContext {
  now: Date;
  normalizeDays: number;
  letters: TaxLetters;
  /** NF or NFS transactions may come without positions and payments. */
  nonFiscal: boolean;
}

function money(v: Dec): string {
  return fmt(v, Math.max(2, v.s));
}

/** The validation rules 1-4, 7 and 8 on a normalized ESR (rules 5, 6 and 9 are in the normalization). */
export function checkRules(esr: Obj, ctx: RuleContext): void {
  const posA = lines(esr, 'PosA');
  const payA = lines(esr, 'PayA');
  const taxA = lines(esr, 'TaxA');
  const hasPositions = posA.some((l) => isPos(l) || isMod(l));

  // rule 8: D within Normalize_D days of the current date
  const d = parseLocalDateTime(str(esr, 'D') ?? '');
  if (d && Math.abs(d.getTime() - ctx.now.getTime()) > ctx.normalizeDays * 86_400_000) {
    throw new FiscalError('#DATE_RANGE', { value: str(esr, 'D') ?? '', days: ctx.normalizeDays, now: formatLocalDateTime(ctx.now) });
  }
  if (!ctx.nonFiscal && !hasPositions) {
    throw new FiscalError('#MISSING_FIELD', { field: esr.PosA === undefined ? 'ESR.PosA' : 'ESR.PosA/Pos (at least one position)' });
  }
  // line voids: a voided line takes back (negative amount) an earlier position of this receipt, no more
  // of it than is left, in quantity and in amount
  const sold = new Map<string, { qty: Dec; amt: Dec }>();
  // only a receipt with a voided line needs what was sold before it
  if (posA.some((line) => str(line, 'Void') === '1')) posA.forEach((line, i) => {
    if (!isPos(line)) return;
    const key = articleKey(line);
    const q = qtyOf(line);
    const a = parseDec(str(line, 'Amt') ?? '0') ?? ZERO;
    const left = sold.get(key) ?? { qty: ZERO, amt: ZERO };
    if (str(line, 'Void') !== '1') {
      if (sign(a) > 0) sold.set(key, { qty: add(left.qty, sign(q) < 0 ? neg(q) : q), amt: add(left.amt, a) });
      return;
    }
    const takenQty = sign(q) < 0 ? neg(q) : q;
    const takenAmt = neg(a);
    if (sign(a) > 0 || cmp(takenQty, left.qty) > 0 || cmp(takenAmt, left.amt) > 0) {
      throw new FiscalError('#LINE_VOID', { field: `ESR.PosA[${i}]`, value: key.slice(key.indexOf(':') + 1) });
    }
    sold.set(key, { qty: sub(left.qty, takenQty), amt: sub(left.amt, takenAmt) });
  });
  // Amt = Qty x Pri, rounded to the precision of Amt
  posA.forEach((line, i) => {
    if (!isPos(line)) return;
    const qty = parseDec(str(line, 'Qty') ?? '');
    const pri = parseDec(str(line, 'Pri') ?? '');
    const amt = parseDec(str(line, 'Amt') ?? '');
    if (!qty || !pri || !amt) return;
    const product = round(mul(qty, pri), amt.s);
    if (cmp(product, amt) !== 0) {
      throw new FiscalError('#INVALID_VALUE', { field: `ESR.PosA[${i}].Amt`, detail: `${str(line, 'Amt') ?? ''} is not Qty ${str(line, 'Qty') ?? ''} x Pri ${str(line, 'Pri') ?? ''} = ${fmt(product)}` });
    }
  });
  const tText = str(esr, 'T');
  if (tText === undefined) return;
  const t = parseDec(tText) as Dec;
  const taxN = str(esr, 'TaxN') === '1';
  const vatA = taxA.filter((x) => !str(x, 'TTY'));

  // rule 1: position sum (with Mods; Lin is display only) equals T (net sum with TaxN)
  const positions = hasPositions ? analyzePositions(posA) : [];
  if (hasPositions) {
    const posSum = positions.reduce((a, p) => add(a, p.modified), ZERO);
    const expected = taxN ? sumOf(vatA, 'Net') : t;
    if (cmp(posSum, expected) !== 0) throw new FiscalError('#POS_SUM', { actual: money(posSum), expected: money(expected) });
  }
  // rule 2: payments equal T
  if (payA.length === 0 && t.v !== 0n && !ctx.nonFiscal) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.PayA' });
  if (payA.length) {
    const paySum = sumOf(payA, 'Amt');
    if (cmp(paySum, t) !== 0) throw new FiscalError('#PAY_SUM', { actual: money(paySum), expected: money(t) });
  }
  // rule 3: tax amounts equal T
  if (vatA.length) {
    const taxSum = sumOf(vatA, 'Amt');
    if (cmp(taxSum, t) !== 0) throw new FiscalError('#TAX_SUM', { actual: money(taxSum), expected: money(t) });
  }
  // rule 4: Net + TAmt = Amt per tax element
  taxA.forEach((tax, i) => {
    if (str(tax, 'TTY')) return;
    const net = parseDec(str(tax, 'Net') ?? '');
    const tamt = parseDec(str(tax, 'TAmt') ?? '');
    const amt = parseDec(str(tax, 'Amt') ?? '') as Dec;
    if (net && tamt && cmp(add(net, tamt), amt) !== 0) {
      throw new FiscalError('#TAX_NET', { field: `ESR.TaxA[${i}]`, net: money(net), tamt: money(tamt), amt: money(amt) });
    }
  });
  // rule 7: per tax group, the modified position amounts equal the tax element
  if (hasPositions && taxA.length) {
    const perTax = amountsPerTax(positions, taxA, ctx.letters);
    taxA.forEach((tax, i) => {
      if (str(tax, 'TTY')) return;
      const expected = parseDec(str(tax, taxN ? 'Net' : 'Amt') ?? '') ?? ZERO;
      const actual = perTax[i] as Dec;
      if (cmp(actual, expected) !== 0) {
        throw new FiscalError('#TAX_POS_SUM', { group: str(tax, 'TaxG') ?? '', actual: money(actual), expected: money(expected), field: `ESR.TaxA[${i}]` });
      }
    });
  }
}

/** The customer fields the spec requires on an invoice in every country. */
export const INVOICE_CUSTOMER_FIELDS = ['Nam', 'Adr', 'Zip', 'City'] as const;

/**
 * The spec requires Ctm with Nam, Adr, Zip and City on invoices "in all countries", but says such
 * requirements per business case are not enforced as schema rules: a missing one is a Warning naming the
 * field, and the invoice is registered (as missing "required" Cfg fields are). A country whose law needs
 * more refuses in its own module.
 */
export function invoiceCustomerWarnings(esr: Obj, bc: BusinessCase): string[] {
  if (!bc.fiscal || !bc.flags.includes('invoice')) return [];
  const need = `an invoice names its customer with ${INVOICE_CUSTOMER_FIELDS.join(', ')}`;
  const ctm = esr.Ctm;
  if (!isObj(ctm)) return [`ESR.Ctm is missing: ${need}`];
  return INVOICE_CUSTOMER_FIELDS.filter((f) => (str(ctm, f) ?? '').trim() === '').map((f) => `ESR.Ctm.${f} is missing: ${need}`);
}

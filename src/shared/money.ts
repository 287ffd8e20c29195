/**
 * Exact decimal arithmetic for money, quantities and percentages.
 * A Dec is an integer mantissa with a decimal scale: 1.50 is {v: 150n, s: 2}.
 * JavaScript numbers are never used for amounts.
 */
export interface Dec {
  readonly v: bigint;
  readonly s: number;
}

/** Digits a JavaScript number holds exactly: up to this many, the mantissa is built without BigInt parsing. */
const EXACT_DIGITS = 15;

/**
 * Parses "1.50", "-3", ".5", "+2.0"; returns undefined for anything else (no exponents, no commas, no
 * point without digits after it). At most 18 integer and 12 fraction digits. Written as a loop over the
 * characters, not a regular expression and BigInt(string): every amount of every receipt passes here.
 */
export function parseDec(text: string): Dec | undefined {
  const d = scanDecimal(text, true);
  return typeof d === 'object' ? d : undefined;
}

/**
 * Whether parseDec takes the text, without making the value: the shape check asks this of every amount,
 * quantity and rate of a receipt and needs no number, and a BigInt and its Dec are garbage for the
 * collector at thousands of receipts a second.
 */
export function isDecimal(text: string): boolean {
  return scanDecimal(text) !== false;
}

/** One pass over a decimal's text: false when parseDec refuses it, else its value (`value`) or true. */
function scanDecimal(text: string, value = false): Dec | boolean {
  const n = text.length;
  let i = 0;
  const first = n > 0 ? text.charCodeAt(0) : 0;
  const signed = first === 45 || first === 43; // '-' or '+'
  if (signed) i = 1;
  let intDigits = 0;
  let fracDigits = 0;
  let point = false;
  let mantissa = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (point) fracDigits++;
      else intDigits++;
      mantissa = mantissa * 10 + (c - 48);
    } else if (c === 46 && !point) {
      point = true;
    } else {
      return false;
    }
  }
  if ((point && fracDigits === 0) || intDigits + fracDigits === 0 || fracDigits > 12 || intDigits > 18) return false;
  if (!value) return true;
  const v = intDigits + fracDigits <= EXACT_DIGITS ? BigInt(mantissa) : BigInt(text.slice(signed ? 1 : 0).replace('.', ''));
  return { v: first === 45 ? -v : v, s: fracDigits };
}

export function dec(text: string): Dec {
  const d = parseDec(text);
  if (!d) throw new Error(`not a decimal: ${text}`);
  return d;
}

export const ZERO: Dec = { v: 0n, s: 0 };

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

export function rescale(a: Dec, s: number): Dec {
  if (s === a.s) return a;
  if (s > a.s) return { v: a.v * pow10(s - a.s), s };
  return round(a, s);
}

/** Rounds half away from zero (commercial rounding) to s decimals. */
export function round(a: Dec, s: number): Dec {
  if (s >= a.s) return rescale(a, s);
  const f = pow10(a.s - s);
  const neg = a.v < 0n;
  const abs = neg ? -a.v : a.v;
  let q = abs / f;
  if ((abs % f) * 2n >= f) q += 1n;
  return { v: neg ? -q : q, s };
}

export function add(a: Dec, b: Dec): Dec {
  const s = Math.max(a.s, b.s);
  return { v: rescale(a, s).v + rescale(b, s).v, s };
}

export function sub(a: Dec, b: Dec): Dec {
  return add(a, neg(b));
}

export function neg(a: Dec): Dec {
  return { v: -a.v, s: a.s };
}

export function mul(a: Dec, b: Dec): Dec {
  return { v: a.v * b.v, s: a.s + b.s };
}

/** a / b rounded half away from zero to s decimals. */
export function div(a: Dec, b: Dec, s: number): Dec {
  if (b.v === 0n) throw new Error('division by zero');
  // a.v/10^a.s / (b.v/10^b.s) = a.v*10^b.s / (b.v*10^a.s); keep one extra digit to round.
  let num = a.v * pow10(b.s + s + 1);
  let den = b.v * pow10(a.s);
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  return round({ v: num / den, s: s + 1 }, s);
}

export function cmp(a: Dec, b: Dec): number {
  const s = Math.max(a.s, b.s);
  const x = rescale(a, s).v;
  const y = rescale(b, s).v;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function eq(a: Dec, b: Dec): boolean {
  return cmp(a, b) === 0;
}

export function sign(a: Dec): -1 | 0 | 1 {
  return a.v < 0n ? -1 : a.v > 0n ? 1 : 0;
}

export function abs(a: Dec): Dec {
  return a.v < 0n ? neg(a) : a;
}

export function sum(values: readonly Dec[]): Dec {
  return values.reduce(add, ZERO);
}

/** Formats with exactly s decimals (default: the value's own scale). */
export function fmt(a: Dec, s: number = a.s): string {
  const r = rescale(a, s);
  const negative = r.v < 0n;
  let digits = (negative ? -r.v : r.v).toString();
  if (s > 0) {
    digits = digits.padStart(s + 1, '0');
    digits = `${digits.slice(0, -s)}.${digits.slice(-s)}`;
  }
  return negative ? `-${digits}` : digits;
}

/** Formats money with at least 2 decimals, more only if the value needs them. */
export function fmtMoney(a: Dec): string {
  return fmt(a, Math.max(2, significantScale(a)));
}

/** The smallest scale that represents the value exactly. */
export function significantScale(a: Dec): number {
  let { v, s } = a;
  while (s > 0 && v % 10n === 0n) {
    v /= 10n;
    s -= 1;
  }
  return s;
}

/** Tax contained in a gross amount: gross * rate / (100 + rate), rounded to s decimals. */
export function taxOfGross(gross: Dec, ratePercent: Dec, s: number): Dec {
  const hundred: Dec = { v: 100n, s: 0 };
  return div(mul(gross, ratePercent), add(hundred, ratePercent), s);
}

/** Tax on a net amount: net * rate / 100, rounded to s decimals. */
export function taxOfNet(net: Dec, ratePercent: Dec, s: number): Dec {
  return div(mul(net, ratePercent), { v: 100n, s: 0 }, s);
}

/**
 * Splits total into parts proportional to weights, exactly: the parts add up to total. Each part is
 * its exact share cut toward zero; the units left over go one each to the parts with the largest
 * cut-off remainders (largest remainder method), so with weights of one sign every part has the
 * sign of the total and is within one unit of its exact share.
 */
export function allocate(total: Dec, weights: readonly Dec[]): Dec[] {
  const s = total.s;
  if (weights.length === 0) return [];
  const ws = Math.max(...weights.map((w) => w.s));
  let ints = weights.map((w) => rescale(w, ws).v);
  let den = ints.reduce((a, b) => a + b, 0n);
  if (den === 0n) {
    const even: Dec[] = weights.map(() => ({ v: 0n, s }));
    even[even.length - 1] = total;
    return even;
  }
  if (den < 0n) {
    ints = ints.map((v) => -v);
    den = -den;
  }
  const parts = ints.map((w) => (total.v * w) / den); // BigInt division cuts toward zero
  const remainders = ints.map((w, i) => {
    const r = total.v * w - (parts[i] as bigint) * den;
    return { i, r: r < 0n ? -r : r };
  });
  let left = total.v - parts.reduce((a, b) => a + b, 0n);
  const unit = left < 0n ? -1n : 1n;
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (let k = 0; left !== 0n; k = (k + 1) % remainders.length) {
    const i = (remainders[k] as { i: number }).i;
    parts[i] = (parts[i] as bigint) + unit;
    left -= unit;
  }
  return parts.map((v) => ({ v, s }));
}

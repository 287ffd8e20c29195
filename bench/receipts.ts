// Pool of realistic sale receipts for the load bench. Money is integer cents (bigint) throughout;
// amounts leave this module only as decimal strings with two decimals.

export type BodyKind = 'json' | 'xml';

export interface PoolReceipt {
  kind: BodyKind;
  contentType: string;
  body: Buffer;
}

type TaxLetter = 'A' | 'B' | 'D';

/** Rates in hundredths of a percent: 20.00 % -> 2000n. */
const TAX_RATES: Readonly<Record<TaxLetter, bigint>> = { A: 2000n, B: 1000n, D: 0n };
const TAX_ORDER: readonly TaxLetter[] = ['A', 'B', 'D'];

interface Article {
  dsc: string;
  taxG: TaxLetter;
  priceCents: bigint;
}

// Some names carry characters that must be escaped in XML attributes and JSON strings.
const CATALOG: readonly Article[] = [
  { dsc: 'Coffee', taxG: 'B', priceCents: 300n },
  { dsc: 'Cappuccino', taxG: 'B', priceCents: 380n },
  { dsc: 'Croissant', taxG: 'B', priceCents: 165n },
  { dsc: 'Bread 750g', taxG: 'B', priceCents: 349n },
  { dsc: 'Milk 1l', taxG: 'B', priceCents: 129n },
  { dsc: 'Käse (Emmentaler) 200g', taxG: 'B', priceCents: 289n },
  { dsc: 'Apples 1kg', taxG: 'B', priceCents: 249n },
  { dsc: 'Crème brûlée', taxG: 'B', priceCents: 590n },
  { dsc: 'Pizza "Diavola"', taxG: 'B', priceCents: 1290n },
  { dsc: "Chef's salad", taxG: 'B', priceCents: 990n },
  { dsc: 'Kids menu <10y>', taxG: 'B', priceCents: 750n },
  { dsc: 'Fish & Chips', taxG: 'B', priceCents: 1450n },
  { dsc: 'Schnitzel Wiener Art', taxG: 'B', priceCents: 1690n },
  { dsc: 'Mineral water 0.5l', taxG: 'A', priceCents: 290n },
  { dsc: 'Beer 0.5l', taxG: 'A', priceCents: 480n },
  { dsc: 'House wine 1/8', taxG: 'A', priceCents: 390n },
  { dsc: 'Gin & Tonic', taxG: 'A', priceCents: 950n },
  { dsc: 'Batteries AA 4-pack', taxG: 'A', priceCents: 599n },
  { dsc: 'Dish soap 500ml', taxG: 'A', priceCents: 219n },
  { dsc: 'Phone charger USB-C', taxG: 'A', priceCents: 1999n },
  { dsc: 'Umbrella', taxG: 'A', priceCents: 1249n },
  { dsc: 'T-shirt size M', taxG: 'A', priceCents: 1995n },
  { dsc: 'Notebook A5', taxG: 'A', priceCents: 349n },
  { dsc: 'Headphones', taxG: 'A', priceCents: 4999n },
  { dsc: 'Newspaper', taxG: 'D', priceCents: 250n },
  { dsc: 'Postage stamp', taxG: 'D', priceCents: 95n },
  { dsc: 'Bottle deposit', taxG: 'D', priceCents: 25n },
  { dsc: 'Crate deposit', taxG: 'D', priceCents: 330n },
  { dsc: 'Tip', taxG: 'D', priceCents: 200n },
];

export function formatCents(cents: bigint): string {
  if (cents < 0n) return `-${formatCents(-cents)}`;
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/** round-half-up(num / den) for num >= 0, den > 0 */
function divRoundHalfUp(num: bigint, den: bigint): bigint {
  return (2n * num + den) / (2n * den);
}

/** Tax included in a gross amount: round-half-up(gross * rate / (100 % + rate)). */
export function includedTax(grossCents: bigint, rateHundredths: bigint): bigint {
  return divRoundHalfUp(grossCents * rateHundredths, 10000n + rateHundredths);
}

/** mulberry32: small deterministic PRNG so every bench run uses the same pool. */
export function makeRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomInt(rnd: () => number, min: number, max: number): number {
  return min + Math.floor(rnd() * (max - min + 1));
}

interface Pos { PN: string; Dsc: string; TaxG: TaxLetter; Qty: string; Pri: string; Amt: string }
interface Pay { Dsc: string; PayG: string; Amt: string }
interface Tax { TaxG: TaxLetter; Prc: string; Net: string; TAmt: string; Amt: string }
export interface Receipt { TL: string; TT: string; T: string; pos: Pos[]; pay: Pay[]; tax: Tax[] }

export function makeReceipt(rnd: () => number): Receipt {
  const count = randomInt(rnd, 5, 30);
  const pos: Pos[] = [];
  const grossByGroup = new Map<TaxLetter, bigint>();
  let total = 0n;
  for (let i = 1; i <= count; i++) {
    const article = CATALOG[Math.floor(rnd() * CATALOG.length)];
    if (article === undefined) throw new Error('catalog index out of range');
    const qty = randomInt(rnd, 1, 3);
    const amt = BigInt(qty) * article.priceCents;
    total += amt;
    grossByGroup.set(article.taxG, (grossByGroup.get(article.taxG) ?? 0n) + amt);
    pos.push({
      PN: String(i),
      Dsc: article.dsc,
      TaxG: article.taxG,
      Qty: String(qty),
      Pri: formatCents(article.priceCents),
      Amt: formatCents(amt),
    });
  }
  const tax: Tax[] = [];
  for (const letter of TAX_ORDER) {
    const gross = grossByGroup.get(letter);
    if (gross === undefined) continue;
    const rate = TAX_RATES[letter];
    const tAmt = includedTax(gross, rate);
    tax.push({ TaxG: letter, Prc: formatCents(rate), Net: formatCents(gross - tAmt), TAmt: formatCents(tAmt), Amt: formatCents(gross) });
  }
  const T = formatCents(total);
  return { TL: '1', TT: String(randomInt(rnd, 1, 32)), T, pos, pay: [{ Dsc: 'Cash', PayG: 'cash', Amt: T }], tax };
}

function parseCents(s: string): bigint {
  const m = /^(\d+)\.(\d{2})$/.exec(s);
  if (m === null || m[1] === undefined || m[2] === undefined) throw new Error(`bad amount ${s}`);
  return BigInt(m[1]) * 100n + BigInt(m[2]);
}

/** The ESR validation rules 1-4 of the interface spec, checked on our own output. */
export function checkReceipt(r: Receipt): void {
  const sum = (xs: readonly { Amt: string }[]): bigint => xs.reduce((acc, x) => acc + parseCents(x.Amt), 0n);
  const t = parseCents(r.T);
  if (sum(r.pos) !== t) throw new Error('positions do not sum to T');
  if (sum(r.pay) !== t) throw new Error('payments do not sum to T');
  if (sum(r.tax) !== t) throw new Error('tax amounts do not sum to T');
  for (const p of r.pos) {
    if (BigInt(p.Qty) * parseCents(p.Pri) !== parseCents(p.Amt)) throw new Error(`position ${p.PN}: Qty*Pri != Amt`);
  }
  for (const x of r.tax) {
    if (parseCents(x.Net) + parseCents(x.TAmt) !== parseCents(x.Amt)) throw new Error(`tax ${x.TaxG}: Net+TAmt != Amt`);
  }
}

export function toJson(r: Receipt): string {
  return JSON.stringify({
    Tra: {
      ESR: {
        TL: r.TL,
        TT: r.TT,
        T: r.T,
        PosA: r.pos.map((p) => ({ _: 'Pos', ...p })),
        PayA: r.pay.map((p) => ({ _: 'Pay', ...p })),
        TaxA: r.tax.map((t) => ({ _: 'Tax', ...t })),
      },
    },
  });
}

export function escapeXmlAttr(s: string): string {
  return s.replace(/[&<>"'\t\n\r]/g, (c) => {
    switch (c) {
      case '&': return '&amp;';
      case '<': return '&lt;';
      case '>': return '&gt;';
      case '"': return '&quot;';
      case "'": return '&apos;';
      case '\t': return '&#9;';
      case '\n': return '&#10;';
      default: return '&#13;';
    }
  });
}

function xmlElement(name: string, attrs: object): string {
  const parts = Object.entries(attrs).map(([k, v]) => ` ${k}="${escapeXmlAttr(String(v))}"`);
  return `<${name}${parts.join('')}/>`;
}

export function toXml(r: Receipt): string {
  return (
    `<Tra><ESR TL="${escapeXmlAttr(r.TL)}" TT="${escapeXmlAttr(r.TT)}" T="${escapeXmlAttr(r.T)}">` +
    `<PosA>${r.pos.map((p) => xmlElement('Pos', p)).join('')}</PosA>` +
    `<PayA>${r.pay.map((p) => xmlElement('Pay', p)).join('')}</PayA>` +
    `<TaxA>${r.tax.map((t) => xmlElement('Tax', t)).join('')}</TaxA>` +
    `</ESR></Tra>`
  );
}

/** size receipts, alternating JSON (even index) and XML (odd index). */
export function makePool(size: number, seed: number): PoolReceipt[] {
  const rnd = makeRandom(seed);
  const pool: PoolReceipt[] = [];
  for (let i = 0; i < size; i++) {
    const r = makeReceipt(rnd);
    checkReceipt(r);
    pool.push(
      i % 2 === 0
        ? { kind: 'json', contentType: 'application/json', body: Buffer.from(toJson(r), 'utf8') }
        : { kind: 'xml', contentType: 'text/xml', body: Buffer.from(toXml(r), 'utf8') },
    );
  }
  return pool;
}

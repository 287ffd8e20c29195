/**
 * The day closing (Z report): running accumulators over the registered journal records since the
 * last Z, and the `Z` element of the TraC and the `Fis.Z` element computed from them. The same fold
 * over the journal's records gives the same result, so every Z can be checked against the journal.
 * Also the perpetual grand totals of the `Fis_Tot` attribute.
 *
 * Every amount is exact (shared/money.ts); the accumulators hold decimal strings and counts only, so
 * they are JSON-serializable and survive a restart in the register's persisted state.
 * What counts where: docs/z-report.md.
 */
import { type Dec, add, cmp, dec, fmt, neg, parseDec, sign, significantScale, sum, allocate, ZERO } from '../../shared/money.js';
import { type Obj, lines, obj, str } from '../codec/index.js';
import { type BusinessKind, classify, journaledFlags } from '../esr/business-case.js';
import { type PositionInfo, analyzePositions, completeTax, isMod, isPos, resolveWithTaxA } from '../esr/tax.js';

/** A count and a signed amount (decimal string with the precision of its inputs). */
export interface ZSum {
  cnt: number;
  amt: string;
}

export interface ZTaxSum {
  taxG: string;
  /** the rate as first seen (key: its numeric value) */
  prc: string;
  /** '' for VAT, else the non-VAT tax type (Base and Amt instead of Net and TAmt) */
  tty: string;
  net: string;
  tamt: string;
  amt: string;
  base: string;
}

export interface ZCatSum {
  cat: string;
  catN: string;
  tamt: string;
  amt: string;
}

export interface ZCreditSum {
  rsn: string;
  cnt: number;
  amt: string;
  traCnt: number;
}

export interface ZOprSum {
  /** ESR.Opr ('' when the operator is known by OprSSN only, or not at all) */
  opr: string;
  /** first ESR.OprSSN seen for the operator */
  ssn: string;
  /** turnover of the operator's fiscal transactions */
  amt: string;
  /** earliest and latest ESR.D of the operator's records */
  tsFirst: string;
  tsLast: string;
  audit: Array<{ code: 'CLOCKIN' | 'CLOCKOUT'; ts: string }>;
  /** position of the operator's first record in the day, for the output order */
  order: number;
}

/**
 * The running totals of one day (since the last Z). Plain JSON: strings, numbers, arrays, objects
 * and null. Map keys carry a prefix (`k:`), so no key is ever `__proto__`.
 */
export interface ZAccumulator {
  v: 1;
  /** Tra records folded since the last Z */
  records: number;
  /** TS (service time) of the first record folded: TSDayOpen; '' when none */
  tsOpen: string;
  /** ESR.D and SQ of the last record folded ('' and 0 when none) */
  lastD: string;
  lastSq: number;
  /** fiscal turnover: sum of ESR.T of the turnover transactions */
  t: string;
  drawerOpen: number;
  /** negative position amounts of turnover transactions (not line voids) */
  credit: ZSum;
  /** Mods with a negative amount */
  discount: ZSum;
  /** Mods with a positive amount */
  surcharge: ZSum;
  /** FN range of the records folded */
  unit: { first: string; last: string; tsFirst: string; tsLast: string } | null;
  tra: Record<string, ZSum>;
  cat: Record<string, ZCatSum>;
  pay: Record<string, { dsc: string; amt: string }>;
  rsn: Record<string, ZCreditSum>;
  tax: Record<string, ZTaxSum>;
  opr: Record<string, ZOprSum>;
}

export interface ZContext {
  /** the index of this Z */
  zi: number;
  /** local date-time YYYY-MM-DDThh:mm:ss of the closing: TSDayClose */
  now: string;
  /** SQ of the last journal record before the Z */
  lastSq: number;
  /** ESR.D of the last transaction before the Z (else the accumulator's) */
  lastD: string | undefined;
  /** ID of the fiscal unit that allocated the FN range */
  fisUnitId: string;
}

export interface ZResult {
  /** the TraC `Z` element */
  z: Obj;
  /** the `Fis.Z` element */
  fisZ: Obj;
}

export function emptyZ(): ZAccumulator {
  return {
    v: 1,
    records: 0,
    tsOpen: '',
    lastD: '',
    lastSq: 0,
    t: '0',
    drawerOpen: 0,
    credit: { cnt: 0, amt: '0' },
    discount: { cnt: 0, amt: '0' },
    surcharge: { cnt: 0, amt: '0' },
    unit: null,
    tra: {},
    cat: {},
    pay: {},
    rsn: {},
    tax: {},
    opr: {},
  };
}

// ---------------------------------------------------------------------------------------------
// classification of a journal record

/** Business cases whose T is fiscal turnover (unless flagged test). */
export const TURNOVER_KINDS: ReadonlySet<BusinessKind> = new Set<BusinessKind>(['sale', 'return', 'void', 'invoice', 'voucher', 'deposit', 'tip']);
/** Non-fiscal money movements: into the payments and the drawer, not into turnover and tax. */
export const MOVEMENT_KINDS: ReadonlySet<BusinessKind> = new Set<BusinessKind>(['payin', 'payout', 'payment']);
/** Payment groups that move cash in the drawer (a transaction with one of them opens the drawer). */
export const DRAWER_PAYG: ReadonlySet<string> = new Set(['cash', 'change', 'foreign']);

const KINDS: ReadonlySet<string> = new Set<BusinessKind>([
  'sale', 'return', 'void', 'invoice', 'voucher', 'deposit', 'tip', 'nonfiscal',
  'closing', 'training', 'payment', 'login', 'logout', 'payin', 'payout', 'reprint', 'xreport',
]);

/** Output order of ZFisTraA; other descriptions follow in code-point order. */
const TRA_ORDER = ['sale', 'return', 'void', 'invoice', 'voucher', 'deposit', 'tip', 'lineVoid', 'payin', 'payout', 'payment', 'login', 'logout', 'training', 'nonfiscal', 'reprint', 'xreport', 'closing', 'test'];

export type ZRole = 'turnover' | 'movement' | 'login' | 'logout' | 'closing' | 'test' | 'other';

interface RecordView {
  esr: Obj;
  kind: BusinessKind;
  test: boolean;
  role: ZRole;
  /** the ZFisTraA line the record counts in */
  dsc: string;
}

function view(record: Obj): RecordView | undefined {
  if (record._ !== undefined && record._ !== 'Tra') return undefined;
  const esr = obj(record, 'ESR');
  if (!esr) return undefined;
  const bc = str(record, 'BC');
  const flags = journaledFlags(record);
  const kind: BusinessKind = bc !== undefined && KINDS.has(bc) ? (bc as BusinessKind) : classify(esr).kind;
  const test = flags.includes('test') || str(esr, 'Test') === '1';
  const nonFiscalMark = Boolean(str(esr, 'NF') || str(esr, 'NFS'));
  let role: ZRole;
  let dsc: string = kind;
  if (test) {
    role = 'test';
    dsc = 'test';
  } else if (TURNOVER_KINDS.has(kind)) {
    role = nonFiscalMark ? 'other' : 'turnover';
    if (nonFiscalMark) dsc = 'nonfiscal';
  } else if (MOVEMENT_KINDS.has(kind)) role = 'movement';
  else if (kind === 'login' || kind === 'logout' || kind === 'closing') role = kind;
  else role = 'other';
  return { esr, kind, test, role, dsc };
}

/** The role a journal record plays in the Z (turnover, movement, login, logout, closing, test, other); undefined for records that are not transactions. */
export function zRoleOf(record: Obj): ZRole | undefined {
  return view(record)?.role;
}

// ---------------------------------------------------------------------------------------------
// amounts

function amountOf(text: string | undefined): Dec {
  return (text === undefined ? undefined : parseDec(text.trim())) ?? ZERO;
}

/** Money as output: 2 decimals, more when the inputs had more. */
function money(d: Dec): string {
  return fmt(d, Math.max(2, d.s));
}

function plus(acc: string, d: Dec): string {
  return fmt(add(dec(acc), d));
}

function positionsOf(posA: Obj[]): PositionInfo[] {
  try {
    return analyzePositions(posA);
  } catch {
    // a journaled record was validated; should a Mod name nothing, take the positions unmodified
    return posA.flatMap((line, index) => (isPos(line) ? [{ index, pn: str(line, 'PN') ?? '', amt: amountOf(str(line, 'Amt')), modified: amountOf(str(line, 'Amt')), groups: (str(line, 'TaxG') ?? '').trim().split(/\s+/).filter(Boolean) }] : []));
  }
}

/** The transaction total: ESR.T, else the VAT tax amounts, else the modified positions, else the payments. */
function totalOf(esr: Obj, positions: PositionInfo[] | (() => PositionInfo[])): Dec {
  const t = str(esr, 'T');
  if (t !== undefined && parseDec(t)) return dec(t);
  const vat = lines(esr, 'TaxA').filter((x) => !str(x, 'TTY'));
  if (vat.length) return sum(vat.map((x) => amountOf(str(x, 'Amt'))));
  const pos = typeof positions === 'function' ? positions() : positions;
  if (pos.length) return sum(pos.map((p) => p.modified));
  return sum(lines(esr, 'PayA').map((p) => amountOf(str(p, 'Amt'))));
}

/** Payments of a record as they enter ZPayA; a PAYOUT sent with a positive total is taken as money out. */
function paymentsOf(esr: Obj, kind: BusinessKind, total: Dec): Array<{ payG: string; amt: Dec }> {
  const payA = lines(esr, 'PayA');
  let pays = payA.map((p) => ({ payG: (str(p, 'PayG') ?? 'cash').trim() || 'cash', amt: amountOf(str(p, 'Amt')) }));
  if (pays.length === 0 && (kind === 'payin' || kind === 'payout') && total.v !== 0n) pays = [{ payG: 'cash', amt: total }];
  if (kind === 'payout') {
    const paid = pays.length ? sum(pays.map((p) => p.amt)) : total;
    if (sign(paid) > 0) pays = pays.map((p) => ({ payG: p.payG, amt: neg(p.amt) }));
  }
  return pays;
}

/** A Tax element with Net and TAmt completed as the normalization does. */
function taxValues(tax: Obj): { amt: Dec; tamt: Dec; net: Dec; base: Dec } {
  const c: Obj = { ...tax };
  completeTax(c);
  const amt = amountOf(str(c, 'Amt'));
  const tamtText = str(c, 'TAmt');
  const netText = str(c, 'Net');
  const tamt = tamtText !== undefined ? amountOf(tamtText) : netText !== undefined ? add(amt, neg(amountOf(netText))) : ZERO;
  const net = netText !== undefined ? amountOf(netText) : add(amt, neg(tamt));
  return { amt, tamt, net, base: amountOf(str(c, 'Base')) };
}

interface CatShare {
  cat: string;
  catN: string;
  amt: Dec;
  tamt: Dec;
}

/**
 * The VAT tax elements of a transaction split over the categories of its positions: each Tax's
 * Amt and TAmt are allocated exactly (shared/money.ts allocate) to the positions of its group in
 * proportion to their modified amounts. A Tax without positions goes to the positions whose group
 * could not be resolved, else to all positions, else to the default category ''.
 */
function categoryShares(esr: Obj, positions: PositionInfo[]): CatShare[] {
  const posA = lines(esr, 'PosA');
  const taxA = lines(esr, 'TaxA');
  const members: number[][] = taxA.map(() => []);
  const unresolved: number[] = [];
  positions.forEach((p, k) => {
    let resolved = false;
    const joined = new Set<number>();
    for (const g of p.groups) {
      let j = -1;
      try {
        // direct TaxG link or a percentage matching Tax.Prc (the letters are not on the record)
        j = resolveWithTaxA(g, taxA, {}, '');
      } catch {
        j = -1;
      }
      const tax = taxA[j];
      if (tax && !str(tax, 'TTY')) {
        resolved = true;
        if (!joined.has(j)) {
          joined.add(j);
          (members[j] as number[]).push(k);
        }
      }
    }
    if (!resolved) unresolved.push(k);
  });
  const catOf = (k: number): { cat: string; catN: string } => {
    const line = posA[(positions[k] as PositionInfo).index] ?? {};
    return { cat: str(line, 'Cat') ?? '', catN: str(line, 'CatN') ?? '' };
  };
  const out: CatShare[] = [];
  taxA.forEach((tax, j) => {
    if (str(tax, 'TTY')) return;
    const { amt, tamt } = taxValues(tax);
    let m = members[j] as number[];
    if (m.length === 0) m = unresolved.length ? unresolved : positions.map((_, k) => k);
    if (m.length === 0) {
      out.push({ cat: '', catN: '', amt, tamt });
      return;
    }
    const weights = m.map((k) => (positions[k] as PositionInfo).modified);
    const amts = allocate(amt, weights);
    const tamts = allocate(tamt, weights);
    m.forEach((k, x) => out.push({ ...catOf(k), amt: amts[x] as Dec, tamt: tamts[x] as Dec }));
  });
  return out;
}

function keyOf(...parts: string[]): string {
  return `k:${parts.length === 1 ? (parts[0] as string) : JSON.stringify(parts)}`;
}

function rateKey(prc: string): string {
  const d = parseDec(prc.trim().replace(/%$/, ''));
  return d ? fmt(d, significantScale(d)) : prc;
}

function addSum(map: Record<string, ZSum>, key: string, cnt: number, amt: Dec): void {
  const k = keyOf(key);
  const e = map[k];
  if (e) {
    e.cnt += cnt;
    e.amt = plus(e.amt, amt);
  } else {
    map[k] = { cnt, amt: fmt(amt) };
  }
}

function operatorOf(acc: ZAccumulator, esr: Obj, d: string): ZOprSum {
  const opr = (str(esr, 'Opr') ?? '').trim();
  const ssn = (str(esr, 'OprSSN') ?? '').trim();
  const k = opr ? keyOf('o', opr) : ssn ? keyOf('s', ssn) : keyOf('o', '');
  let e = acc.opr[k];
  if (!e) {
    e = { opr, ssn, amt: '0', tsFirst: d, tsLast: d, audit: [], order: acc.records };
    acc.opr[k] = e;
  }
  if (!e.ssn && ssn) e.ssn = ssn;
  if (d && (!e.tsFirst || d < e.tsFirst)) e.tsFirst = d;
  if (d && d > e.tsLast) e.tsLast = d;
  return e;
}

// ---------------------------------------------------------------------------------------------
// the fold

/**
 * Folds one journal record (the data object of a `Tra` record) into the day's accumulators.
 * Records of other types are ignored. A closing record (NFS Z, not flagged test) resets the
 * accumulators: compute the Z with closeZ first, then fold the Z record (or start from emptyZ()).
 */
export function addToZ(acc: ZAccumulator, record: Obj): void {
  const v = view(record);
  if (!v) return;
  const { esr, kind, role, dsc } = v;
  if (role === 'closing') {
    Object.assign(acc, emptyZ());
    return;
  }
  const ts = str(record, 'TS') ?? '';
  const d = str(esr, 'D') ?? ts;
  if (!acc.tsOpen) acc.tsOpen = ts || d;
  acc.lastD = d;
  const sq = Number(str(record, 'SQ') ?? '');
  if (Number.isSafeInteger(sq) && sq > 0) acc.lastSq = sq;

  // the FN range of the fiscal unit: every record that carries an FN
  const fis = obj(record, 'Fis');
  const fn = fis ? str(fis, 'FN') : undefined;
  if (fis && fn) {
    const fisD = str(fis, 'D') ?? ts;
    if (acc.unit) {
      acc.unit.last = fn;
      acc.unit.tsLast = fisD;
    } else {
      acc.unit = { first: fn, last: fn, tsFirst: fisD, tsLast: fisD };
    }
  }

  const posA = lines(esr, 'PosA');
  const positions = positionsOf(posA);
  const total = totalOf(esr, positions);

  // business cases: every record counts (test records under 'test'); money movements by their payments
  const pays = role === 'turnover' || role === 'movement' ? paymentsOf(esr, kind, total) : [];
  addSum(acc.tra, dsc, 1, role === 'movement' ? sum(pays.map((p) => p.amt)) : total);

  if (role === 'login' || role === 'logout') {
    operatorOf(acc, esr, d).audit.push({ code: role === 'login' ? 'CLOCKIN' : 'CLOCKOUT', ts: d });
  }

  if (role === 'turnover' || role === 'movement') {
    for (const p of pays) {
      const k = keyOf(p.payG);
      const e = acc.pay[k];
      if (e) e.amt = plus(e.amt, p.amt);
      else acc.pay[k] = { dsc: p.payG, amt: fmt(p.amt) };
    }
    if (kind === 'payin' || kind === 'payout' || pays.some((p) => DRAWER_PAYG.has(p.payG.toLowerCase()))) acc.drawerOpen += 1;
    operatorOf(acc, esr, d);
  }

  if (role !== 'turnover') {
    acc.records += 1;
    return;
  }

  // fiscal turnover
  acc.t = plus(acc.t, total);
  const op = operatorOf(acc, esr, d);
  op.amt = plus(op.amt, total);


  // taxes
  for (const tax of lines(esr, 'TaxA')) {
    const taxG = str(tax, 'TaxG') ?? '';
    const prc = str(tax, 'Prc') ?? '';
    const tty = str(tax, 'TTY') ?? '';
    const k = keyOf(taxG, rateKey(prc), tty);
    const { amt, tamt, net, base } = taxValues(tax);
    const e = acc.tax[k];
    if (e) {
      e.amt = plus(e.amt, amt);
      e.tamt = plus(e.tamt, tty ? ZERO : tamt);
      e.net = plus(e.net, tty ? ZERO : net);
      e.base = plus(e.base, tty ? base : ZERO);
    } else {
      acc.tax[k] = { taxG, prc, tty, amt: fmt(amt), tamt: fmt(tty ? ZERO : tamt), net: fmt(tty ? ZERO : net), base: fmt(tty ? base : ZERO) };
    }
  }

  // categories
  for (const share of categoryShares(esr, positions)) {
    const k = keyOf(share.cat);
    const e = acc.cat[k];
    if (e) {
      if (!e.catN && share.catN) e.catN = share.catN;
      e.amt = plus(e.amt, share.amt);
      e.tamt = plus(e.tamt, share.tamt);
    } else {
      acc.cat[k] = { cat: share.cat, catN: share.catN, amt: fmt(share.amt), tamt: fmt(share.tamt) };
    }
  }

  // discounts and surcharges: each Mod by the sign of its amount
  for (const line of posA) {
    if (!isMod(line)) continue;
    const amt = amountOf(str(line, 'Amt'));
    const s = sign(amt);
    if (s < 0) acc.discount = { cnt: acc.discount.cnt + 1, amt: plus(acc.discount.amt, amt) };
    else if (s > 0) acc.surcharge = { cnt: acc.surcharge.cnt + 1, amt: plus(acc.surcharge.amt, amt) };
  }

  // credits (negative positions) and line voids
  const wholeVoid = str(esr, 'Void') === '1';
  const rsnOfTra = (str(esr, 'Rsn') ?? '').trim();
  const rsnSeen = new Set<string>();
  let lineVoids = 0;
  let lineVoidAmt: Dec = ZERO;
  for (const p of positions) {
    const line = posA[p.index] ?? {};
    if (!wholeVoid && str(line, 'Void') === '1') {
      lineVoids += 1;
      lineVoidAmt = add(lineVoidAmt, p.modified);
      continue;
    }
    if (sign(p.modified) >= 0) continue;
    acc.credit = { cnt: acc.credit.cnt + 1, amt: plus(acc.credit.amt, p.modified) };
    const rsn = (str(line, 'Rsn') ?? '').trim() || rsnOfTra;
    const k = keyOf(rsn);
    const e = acc.rsn[k] ?? (acc.rsn[k] = { rsn, cnt: 0, amt: '0', traCnt: 0 });
    e.cnt += 1;
    e.amt = plus(e.amt, p.modified);
    if (!rsnSeen.has(k)) {
      rsnSeen.add(k);
      e.traCnt += 1;
    }
  }
  if (lineVoids > 0) addSum(acc.tra, 'lineVoid', 1, lineVoidAmt);
  acc.records += 1;
}

// ---------------------------------------------------------------------------------------------
// closing

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function traRank(dsc: string): number {
  const i = TRA_ORDER.indexOf(dsc);
  return i < 0 ? TRA_ORDER.length : i;
}

function sortedTax(acc: ZAccumulator): ZTaxSum[] {
  return Object.values(acc.tax).sort((a, b) => {
    if (a.tty !== b.tty) return a.tty === '' ? -1 : b.tty === '' ? 1 : byText(a.tty, b.tty);
    if (a.taxG !== b.taxG) return byText(a.taxG, b.taxG);
    const pa = parseDec(rateKey(a.prc));
    const pb = parseDec(rateKey(b.prc));
    return pa && pb ? cmp(pa, pb) : byText(a.prc, b.prc);
  });
}

function rate(prc: string): string {
  const d = parseDec(prc.trim().replace(/%$/, ''));
  return d ? fmt(d, Math.max(2, d.s)) : prc;
}

/** The TraC `Z` and the `Fis.Z` of the day; the accumulator is not changed. */
export function closeZ(acc: ZAccumulator, ctx: ZContext): ZResult {
  const t = money(dec(acc.t));
  const creditAmt = money(dec(acc.credit.amt));
  const taxes = sortedTax(acc);
  const vat = taxes.filter((x) => x.tty === '');

  const z: Obj = { T: t, CAmt: creditAmt };
  const lastD = ctx.lastD ?? (acc.lastD || undefined);
  if (lastD) z.LastD = lastD;
  z.LastSQ = String(ctx.lastSq);
  z.ZTax = vat.map((x, i): Obj => ({ TaxG: x.taxG, TaxI: String(i + 1), Prc: rate(x.prc), TAmt: money(dec(x.tamt)), Amt: money(dec(x.amt)) }));

  const tsOpen = acc.tsOpen || ctx.now;
  const zFisUnitA: Obj[] = acc.unit
    ? [{ _: 'ZFisUnit', ID: ctx.fisUnitId, TSFirst: acc.unit.tsFirst, TSLast: acc.unit.tsLast, FirstNum: acc.unit.first, LastNum: acc.unit.last }]
    : [];
  const zFisTraA: Obj[] = Object.entries(acc.tra)
    .map(([k, e]) => ({ e, dsc: k.slice(2) }))
    .sort((a, b) => traRank(a.dsc) - traRank(b.dsc) || byText(a.dsc, b.dsc))
    .map(({ e, dsc }): Obj => ({ _: 'ZFisTra', Dsc: dsc, Cnt: String(e.cnt), Amt: money(dec(e.amt)) }));
  const zCatA: Obj[] = Object.values(acc.cat)
    .sort((a, b) => byText(a.cat, b.cat))
    .map((e): Obj => {
      const amt = dec(e.amt);
      const tamt = dec(e.tamt);
      return { _: 'ZCat', Cat: e.cat, CatN: e.catN, Net: money(add(amt, neg(tamt))), TAmt: money(tamt), Amt: money(amt) };
    });
  const zPayA: Obj[] = Object.values(acc.pay)
    .sort((a, b) => byText(a.dsc, b.dsc))
    .map((e): Obj => ({ _: 'ZPay', Dsc: e.dsc, Amt: money(dec(e.amt)) }));
  const zCreditRsnA: Obj[] = Object.values(acc.rsn)
    .sort((a, b) => byText(a.rsn, b.rsn))
    .map((e): Obj => ({ _: 'ZCreditRsn', Amt: money(dec(e.amt)), Cnt: String(e.cnt), Rsn: e.rsn, TraCnt: String(e.traCnt) }));
  const zTaxA: Obj[] = taxes.map((x): Obj =>
    x.tty === ''
      ? { _: 'Tax', TaxG: x.taxG, Prc: rate(x.prc), Net: money(dec(x.net)), TAmt: money(dec(x.tamt)), Amt: money(dec(x.amt)) }
      : { _: 'Tax', TaxG: x.taxG, Prc: rate(x.prc), TTY: x.tty, Base: money(dec(x.base)), Amt: money(dec(x.amt)) },
  );
  const zOprA: Obj[] = Object.values(acc.opr)
    .sort((a, b) => a.order - b.order)
    .map((e): Obj => {
      const o: Obj = { _: 'ZOpr', Amt: money(dec(e.amt)), OprSSN: e.ssn };
      if (e.opr) o.Opr = e.opr;
      o.TSFirst = e.tsFirst;
      o.TSLast = e.tsLast;
      o.ZAuditA = e.audit.map((a): Obj => ({ _: 'ZAudit', Code: a.code, TS: a.ts }));
      return o;
    });

  const fisZ: Obj = {
    ZI: String(ctx.zi),
    T: t,
    DrawerOpenCnt: String(acc.drawerOpen),
    CreditAmt: creditAmt,
    CreditCnt: String(acc.credit.cnt),
    DiscountCnt: String(acc.discount.cnt),
    DiscountAmt: money(dec(acc.discount.amt)),
    SurchargeCnt: String(acc.surcharge.cnt),
    SurchargeAmt: money(dec(acc.surcharge.amt)),
    ZPeriod: tsOpen.slice(0, 10),
    TSDayOpen: tsOpen,
    TSDayClose: ctx.now,
    ZFisUnitA: zFisUnitA,
    ZFisTraA: zFisTraA,
    ZCatA: zCatA,
    ZPayA: zPayA,
    ZCreditRsnA: zCreditRsnA,
    ZTaxA: zTaxA,
    ZOprA: zOprA,
  };
  return { z, fisZ };
}

/** The Z computed from journal records (the records since the last Z, oldest first): for audits and tests. */
export function zFromJournal(records: readonly Obj[], ctx: ZContext): ZResult {
  const acc = emptyZ();
  for (const r of records) addToZ(acc, r);
  return closeZ(acc, ctx);
}

// ---------------------------------------------------------------------------------------------
// grand totals (Fis_Tot)

/** Perpetual grand totals of the fiscal turnover: never reset by a Z. */
export interface GrandTotals {
  v: 1;
  /** sum of T of all turnover transactions */
  t: string;
  /** sum of the positive T */
  pos: string;
  /** sum of the negative T (a negative amount) */
  neg: string;
  /** number of turnover transactions */
  cnt: number;
}

export function emptyTotals(): GrandTotals {
  return { v: 1, t: '0', pos: '0', neg: '0', cnt: 0 };
}

/** Adds a journal record to the grand totals when it is fiscal turnover (as in the Z: no NF, NFS, test). */
export function addToTotals(gt: GrandTotals, record: Obj): void {
  const v = view(record);
  if (!v || v.role !== 'turnover') return;
  // the positions only when the record has neither T nor taxes (normalized records always have T)
  const total = totalOf(v.esr, () => positionsOf(lines(v.esr, 'PosA')));
  gt.t = plus(gt.t, total);
  if (sign(total) > 0) gt.pos = plus(gt.pos, total);
  else if (sign(total) < 0) gt.neg = plus(gt.neg, total);
  gt.cnt += 1;
}

/** The grand totals as Fis.Tag elements (to be printed, Label plus Value). */
export function totalsTags(gt: GrandTotals): Obj[] {
  return [
    { Name: 'GT', Label: 'Grand total', Value: money(dec(gt.t)) },
    { Name: 'GTPos', Label: 'Grand total +', Value: money(dec(gt.pos)) },
    { Name: 'GTNeg', Label: 'Grand total -', Value: money(dec(gt.neg)) },
    { Name: 'GTCnt', Label: 'Fiscal transactions', Value: String(gt.cnt) },
  ];
}

/**
 * Norway: the SAF-T Cash Register file (Skatteetaten, Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd)
 * of one register, built from its journal records (a pure function: records in, XML text out).
 * Per record in the period: events (login/logout, copy, X/Z report with eventReport, Audit, POS start/stop)
 * and, per signed cash transaction, its receipt event; then the cashtransactions with lines, VAT,
 * payments and the chained signature as journaled. Codes and report figures: saft-report.ts.
 */
import { type Dec, ZERO, add, cmp, fmt, parseDec, rescale, sign, significantScale, sub } from '../../../shared/money.js';
import { type Obj, lines, obj } from '../../codec/index.js';
import {
  BASICS, type CashTx, OTHER_ART_GROUP, REPORT_RATES, type Report, amount, artGroupsOf, cashTxOf, isModLine, isPosLine,
  isX, isZ, lineVat, money2, paymentTypeOf, qtyOf, reportOf, text, vatCodeOf,
} from './saft-report.js';

export const SAFT_NO_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:NO';
export const SAFT_NO_SCHEMA = 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd';

export interface SaftInput {
  /** journal record data of ONE register in SQ order, from its first record (older records feed the report grand totals) */
  records: Obj[];
  /** the Cfg (or a record `{ Cfg }`): Cmp {Nam, TaxId, Adr, Zip, City}, Loc {TL, Nam, Adr, Zip, City}, Trm {TT} */
  cfg: Obj;
  registerId: string;
  /** YYYY-MM-DD or a YYYY-MM-DDThh:mm:ss prefix, compared with each record's TS; both inclusive */
  period: { from?: string; till?: string };
  created: Date;
  software: { name: string; version: string; company: string };
  currency?: string;
  namespace?: string;
}

/** Escapes XML text content (also quotes, so the same function serves attributes). */
export function escapeXml(s: string): string {
  // characters XML 1.0 does not allow are dropped
  return s
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

class Out {
  private readonly out: string[] = [];
  private depth = 0;
  open(name: string): void {
    this.out.push(`${'\t'.repeat(this.depth)}<${name}>`);
    this.depth += 1;
  }
  close(name: string): void {
    this.depth -= 1;
    this.out.push(`${'\t'.repeat(this.depth)}</${name}>`);
  }
  leaf(name: string, value: string | number | undefined, max?: number): void {
    if (value === undefined) return;
    let v = String(value);
    if (max !== undefined) v = [...v].slice(0, max).join('');
    this.out.push(`${'\t'.repeat(this.depth)}<${name}>${escapeXml(v)}</${name}>`);
  }
  raw(line: string): void {
    this.out.push(line);
  }
  toString(): string {
    return `${this.out.join('\n')}\n`;
  }
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** The organisation number: digits only ('NO 999 999 999 MVA' -> '999999999'). */
export function orgNumber(taxId: string | undefined): string {
  return (taxId ?? '').replace(/^\s*NO/i, '').replace(/MVA\s*$/i, '').replace(/\D/g, '');
}

/** `SAF-T Cash Register_<orgnr>_<yyyymmddhhmmss>.xml` (local time of `created`). */
export function saftFileName(orgnr: string, created: Date): string {
  const c = created;
  const stamp = `${c.getFullYear()}${pad(c.getMonth() + 1)}${pad(c.getDate())}${pad(c.getHours())}${pad(c.getMinutes())}${pad(c.getSeconds())}`;
  return `SAF-T Cash Register_${orgNumber(orgnr)}_${stamp}.xml`;
}

/** A record's time: TS (service time, YYYY-MM-DDThh:mm:ss) as date and time, else ESR.D. */
function whenOf(r: Obj): { date: string; time: string } {
  const ts = text(r, 'TS') ?? text(obj(r, 'ESR'), 'D') ?? '';
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})/.exec(ts);
  if (m) return { date: m[1] as string, time: m[2] as string };
  const d = /^(\d{4}-\d{2}-\d{2})/.exec(ts);
  return { date: d ? (d[1] as string) : '1970-01-01', time: '00:00:00' };
}

function inPeriod(r: Obj, period: SaftInput['period']): boolean {
  const ts = text(r, 'TS') ?? text(obj(r, 'ESR'), 'D');
  if (ts === undefined) return true;
  if (period.from && ts.slice(0, period.from.length) < period.from) return false;
  if (period.till && ts.slice(0, period.till.length) > period.till) return false;
  return true;
}

function afterPeriod(r: Obj, period: SaftInput['period']): boolean {
  const ts = text(r, 'TS') ?? text(obj(r, 'ESR'), 'D');
  return ts !== undefined && period.till !== undefined && ts.slice(0, period.till.length) > period.till;
}

function tp(d: Dec): 'C' | 'D' {
  return sign(d) < 0 ? 'D' : 'C';
}

function percent(rate: Dec): string {
  return fmt(rescale(rate, Math.min(3, Math.max(2, significantScale(rate)))));
}

function decimal6(d: Dec): string {
  const r = rescale(d, Math.min(6, d.s));
  return fmt(r, significantScale(r));
}

interface EventOut {
  id: string;
  type: string;
  transId?: string;
  empId?: string;
  date: string;
  time: string;
  text?: string;
  report?: Report;
}

const AUDIT_EVENTS: Readonly<Record<string, string>> = {
  DrawerOpen: 'DRAWOPEN',
  DrawerClose: 'DRAWCLOSE',
  PriceLookup: 'PRICELOOKUP',
  LineVoid: 'LINEDELETE',
  TrainingOn: 'TRAINON',
  TrainingOff: 'TRAINOFF',
};

function receiptEventType(tx: CashTx): string {
  if (tx.training) return 'TRAINREC';
  if (tx.void) return 'VOIDREC';
  if (tx.payin || tx.payout) return 'OTHERREC';
  if (tx.ret) return 'RETREC';
  return 'SALREC';
}

function transTypeOf(tx: CashTx): string {
  if (tx.payin) return 'PAYIN';
  if (tx.payout) return 'PAYOUT';
  if (['sale', 'return', 'void', 'training', ''].includes(tx.bc) || tx.training) return sign(tx.total) < 0 ? 'RETURNSAL' : 'CASHSAL';
  return 'OTHERTRANS';
}

function employeeOf(r: Obj): string | undefined {
  if (r._ === 'Audit') return text(obj(r, 'Audit'), 'Opr') || undefined;
  if (r._ === 'Tra') return text(obj(r, 'ESR'), 'Opr') || undefined;
  return undefined;
}

/** The SAF-T Cash Register XML of one register for a period. */
export function saftCashRegisterXml(input: SaftInput): string {
  const cfg = obj(input.cfg, 'Cfg') ?? input.cfg;
  const cmp0 = obj(cfg, 'Cmp') ?? {};
  const loc = obj(cfg, 'Loc') ?? {};
  const orgnr = orgNumber(text(cmp0, 'TaxId'));
  const companyName = text(cmp0, 'Nam') ?? '';
  const currency = input.currency ?? 'NOK';
  const ns = input.namespace ?? SAFT_NO_NAMESPACE;
  const all = input.records;

  // index: FN -> transaction SQ, copies per FN (up to the end of the period)
  const sqByFn = new Map<string, string>();
  const copies = new Map<string, number>();
  for (const r of all) {
    if (afterPeriod(r, input.period)) break;
    const tx = cashTxOf(r);
    if (tx) sqByFn.set(tx.fn, tx.sq);
    if (r._ === 'Tra' && (text(r, 'BC') ?? '').toLowerCase() === 'reprint') {
      const rfn = text(obj(r, 'Fis'), 'RFN');
      if (rfn) copies.set(rfn, (copies.get(rfn) ?? 0) + 1);
    }
  }

  const events: EventOut[] = [];
  const txs: CashTx[] = [];
  const employees = new Map<string, { name?: string; date: string; time: string }>();
  const usedBasics = new Set<string>();
  const rates = new Map<string, Dec>();
  for (const r of REPORT_RATES) rates.set(fmt(rescale(r, 3)), r);
  let lastZ = -1;
  let zCount = 0;
  let first: string | undefined;
  let last: string | undefined;

  all.forEach((r, i) => {
    const z = isZ(r);
    if (z) zCount += 1;
    const x = isX(r);
    const inside = inPeriod(r, input.period);
    if (inside && r._ !== 'Cfg') {
      const when = whenOf(r);
      first ??= when.date;
      last = when.date;
      const emp = employeeOf(r);
      if (emp && !employees.has(emp)) employees.set(emp, { ...(r._ === 'Tra' ? { name: text(obj(r, 'ESR'), 'OprN') } : {}), ...when });
      const sq = text(r, 'SQ') ?? String(i + 1);
      const tx = cashTxOf(r);
      if (tx) {
        txs.push(tx);
        events.push({
          id: sq, type: receiptEventType(tx), transId: sq, ...(emp ? { empId: emp } : {}),
          date: text(tx.fis, 'TransDate') ?? when.date, time: text(tx.fis, 'TransTime') ?? when.time,
        });
      } else if (r._ === 'Tra') {
        const bc = (text(r, 'BC') ?? '').toLowerCase();
        const fis = obj(r, 'Fis') ?? {};
        const base = { id: sq, ...(emp ? { empId: emp } : {}), ...when };
        if (bc === 'login') events.push({ ...base, type: 'EMPIN' });
        else if (bc === 'logout') events.push({ ...base, type: 'EMPOUT' });
        else if (bc === 'reprint') {
          const rfn = text(fis, 'RFN') ?? '';
          const orig = sqByFn.get(rfn);
          events.push({ ...base, type: 'COPYREC', ...(orig ? { transId: orig } : {}), text: `Copy of receipt nr ${rfn}` });
        } else if (x || z) {
          const report = reportOf({
            records: all.slice(0, i + 1), from: lastZ + 1, kind: z ? 'Z report' : 'X report',
            // the Z's own number, as printed (Fis.Z.ZI), else its count in the file
            reportId: z ? (text(obj(fis, 'Z'), 'ZI') ?? String(zCount)) : `X${sq}`, company: { ident: orgnr, name: companyName },
            registerId: input.registerId, date: when.date, time: when.time,
          });
          events.push({ ...base, type: z ? 'ZREP' : 'XREP', text: z ? 'Z-report' : 'X-report', report });
        } else {
          events.push({ ...base, type: 'OTHEREVT', text: `${text(r, 'BC') ?? 'event'}${text(r, 'BCF') ? ` (${text(r, 'BCF')})` : ''}` });
        }
      } else if (r._ === 'Audit') {
        const audit = obj(r, 'Audit') ?? {};
        const type = text(audit, 'Type') ?? '';
        const t = [AUDIT_EVENTS[type] ? undefined : type, text(audit, 'Txt')].filter(Boolean).join(': ');
        events.push({ id: sq, type: AUDIT_EVENTS[type] ?? 'OTHEREVT', ...(emp ? { empId: emp } : {}), ...when, ...(t ? { text: t } : {}) });
      } else if (r._ === 'log') {
        const ev = (text(r, 'Event') ?? '').toLowerCase();
        events.push({ id: sq, type: ev === 'start' ? 'POSSTART' : ev === 'stop' ? 'POSEND' : 'OTHEREVT', ...when, ...(ev === 'start' || ev === 'stop' ? {} : { text: ev || 'log' }) });
      }
    }
    if (z) lastZ = i;
  });

  // codes and rates used
  const artGroups = new Map<string, string>();
  for (const e of events) {
    usedBasics.add(e.type);
    if (e.report) {
      for (const p of e.report.payments) usedBasics.add(p.id);
      for (const g of e.report.artGroups) if (!artGroups.has(g.id)) artGroups.set(g.id, g.id === OTHER_ART_GROUP ? 'Other' : g.id);
    }
  }
  for (const tx of txs) {
    usedBasics.add(transTypeOf(tx));
    const posA = lines(tx.esr, 'PosA');
    for (const line of posA) {
      if (!isPosLine(line) && !isModLine(line)) continue;
      if (isPosLine(line)) {
        const cat = text(line, 'Cat') || OTHER_ART_GROUP;
        if (!artGroups.has(cat) || artGroups.get(cat) === cat) artGroups.set(cat, text(line, 'CatN') || (cat === OTHER_ART_GROUP ? 'Other' : cat));
      }
    }
    for (const t of lines(tx.esr, 'TaxA')) {
      const rate = amount(text(t, 'Prc'));
      rates.set(fmt(rescale(rate, 3)), rate);
    }
  }

  const o = new Out();
  o.raw('<?xml version="1.0" encoding="UTF-8"?>');
  o.raw(`<auditfile xmlns="${escapeXml(ns)}">`);
  o.open('header');
  const created = input.created;
  const startDate = input.period.from?.slice(0, 10) ?? first ?? isoDate(created);
  const endDate = input.period.till?.slice(0, 10) ?? last ?? isoDate(created);
  o.leaf('fiscalYear', startDate.slice(0, 4));
  o.leaf('startDate', startDate);
  o.leaf('endDate', endDate);
  o.leaf('curCode', currency);
  o.leaf('dateCreated', isoDate(created));
  o.leaf('timeCreated', `${pad(created.getHours())}:${pad(created.getMinutes())}:${pad(created.getSeconds())}`);
  o.leaf('softwareDesc', input.software.name, 100);
  o.leaf('softwareVersion', input.software.version, 20);
  o.leaf('softwareCompanyName', input.software.company, 100);
  o.leaf('auditfileVersion', '1.0');
  o.leaf('headerComment', `Cash register ${input.registerId}`, 999);
  o.close('header');

  o.open('company');
  o.leaf('companyIdent', orgnr, 35);
  o.leaf('companyName', companyName, 100);
  o.leaf('taxRegistrationCountry', 'NO');
  o.leaf('taxRegIdent', `${orgnr}MVA`, 50);
  address(o, 'streetAddress', cmp0);

  o.open('vatCodeDetails');
  for (const rate of [...rates.values()].sort(cmp)) {
    const v = vatCodeOf(rate);
    o.open('vatCodeDetail');
    o.leaf('vatCode', v.code);
    o.leaf('dateOfEntry', startDate);
    o.leaf('vatDesc', v.desc);
    o.leaf('standardVatCode', v.standard);
    o.close('vatCodeDetail');
  }
  o.close('vatCodeDetails');

  if (employees.size) {
    o.open('employees');
    for (const [id, e] of employees) {
      o.open('employee');
      o.leaf('empID', id, 35);
      o.leaf('dateOfEntry', e.date);
      o.leaf('timeOfEntry', e.time);
      o.leaf('surName', e.name || id, 100);
      o.close('employee');
    }
    o.close('employees');
  }

  for (const tx of txs) {
    for (const line of lines(tx.esr, 'PosA')) {
      if (isModLine(line)) usedBasics.add(sign(amount(text(line, 'Amt'))) < 0 ? 'DSC' : 'SAL');
      else if (isPosLine(line)) usedBasics.add(sign(amount(text(line, 'Amt'))) < 0 ? 'RET' : 'SAL');
    }
    for (const pay of lines(tx.esr, 'PayA')) {
      if ((text(pay, 'PayG') ?? '').toLowerCase() !== 'rounding') usedBasics.add(paymentTypeOf(text(pay, 'PayG')));
    }
  }
  const basics = [...usedBasics].map((id) => BASICS[id]).filter((x) => x !== undefined);
  if (basics.length || artGroups.size) {
    o.open('basics');
    for (const [id, desc] of artGroups) {
      o.open('basic');
      o.leaf('basicType', '04');
      o.leaf('basicID', id, 35);
      o.leaf('predefinedBasicID', /^04\d{3}$/.test(id) ? id : OTHER_ART_GROUP);
      o.leaf('basicDesc', desc, 999);
      o.close('basic');
    }
    for (const bsc of basics.sort((x, y) => (x.type + x.id < y.type + y.id ? -1 : 1))) {
      o.open('basic');
      o.leaf('basicType', bsc.type);
      o.leaf('basicID', bsc.id);
      o.leaf('predefinedBasicID', bsc.predefined);
      o.leaf('basicDesc', bsc.desc);
      o.close('basic');
    }
    o.close('basics');
  }

  o.open('location');
  o.leaf('name', text(loc, 'Nam') || text(loc, 'TL') || companyName, 100);
  address(o, 'streetAddress', loc);
  o.open('cashregister');
  o.leaf('registerID', input.registerId, 100);
  for (const e of events) writeEvent(o, e);
  for (const tx of txs) writeTransaction(o, tx, copies.get(tx.fn) ?? 0);
  o.close('cashregister');
  o.close('location');
  o.close('company');
  o.raw('</auditfile>');
  return o.toString();
}

function isoDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function address(o: Out, name: string, a: Obj): void {
  const street = text(a, 'Adr');
  const city = text(a, 'City');
  const zip = text(a, 'Zip');
  if (!street && !city && !zip) return;
  o.open(name);
  o.leaf('streetname', street, 100);
  o.leaf('city', city, 50);
  o.leaf('postalCode', zip, 20);
  o.leaf('country', 'NO');
  o.close(name);
}

function writeEvent(o: Out, e: EventOut): void {
  o.open('event');
  o.leaf('eventID', e.id, 35);
  o.leaf('eventType', e.type);
  o.leaf('transID', e.transId, 35);
  o.leaf('empID', e.empId, 35);
  o.leaf('eventDate', e.date);
  o.leaf('eventTime', e.time);
  o.leaf('eventText', e.text, 9999);
  if (e.report) writeReport(o, e.report);
  o.close('event');
}

function counted(o: Out, list: string, item: string, names: [string, string, string], entries: Report['artGroups']): void {
  o.open(list);
  for (const c of entries) {
    o.open(item);
    o.leaf(names[0], c.id, 35);
    o.leaf(names[1], c.num);
    o.leaf(names[2], c.amnt);
    o.close(item);
  }
  o.close(list);
}

function writeReport(o: Out, r: Report): void {
  o.open('eventReport');
  o.leaf('reportID', r.reportId, 35);
  o.leaf('reportType', r.kind);
  o.leaf('companyIdent', r.companyIdent, 35);
  o.leaf('companyName', r.companyName, 100);
  o.leaf('reportDate', r.date);
  o.leaf('reportTime', r.time);
  o.leaf('registerID', r.registerId, 100);
  o.open('reportTotalCashSales');
  o.leaf('totalCashSaleAmnt', r.totalCashSale);
  o.close('reportTotalCashSales');
  counted(o, 'reportArtGroups', 'reportArtGroup', ['artGroupID', 'artGroupNum', 'artGroupAmnt'], r.artGroups);
  counted(o, 'reportPayments', 'reportPayment', ['paymentType', 'paymentNum', 'paymentAmnt'], r.payments);
  o.open('reportCashSalesVat');
  for (const v of r.vat) {
    o.open('reportCashSaleVat');
    o.leaf('vatCode', v.code);
    o.leaf('vatPerc', v.perc);
    o.leaf('cashSaleAmnt', v.base);
    o.leaf('vatAmnt', v.vat);
    o.leaf('vatAmntTp', v.tp);
    o.close('reportCashSaleVat');
  }
  o.close('reportCashSalesVat');
  o.leaf('reportOpeningChangeFloat', r.openingFloat);
  o.leaf('reportReceiptNum', r.receiptNum);
  o.leaf('reportOpenCashBoxNum', r.openCashBoxNum);
  o.leaf('reportReceiptCopyNum', r.copyNum);
  o.leaf('reportReceiptCopyAmnt', r.copyAmnt);
  o.leaf('reportReceiptProformaNum', r.proformaNum);
  o.leaf('reportReceiptProformaAmnt', r.proformaAmnt);
  o.leaf('reportReturnNum', r.returnNum);
  o.leaf('reportReturnAmnt', r.returnAmnt);
  o.leaf('reportDiscountNum', r.discountNum);
  o.leaf('reportDiscountAmnt', r.discountAmnt);
  o.leaf('reportVoidTransNum', r.voidNum);
  o.leaf('reportVoidTransAmnt', r.voidAmnt);
  counted(o, 'reportCorrLines', 'reportCorrLine', ['corrLineType', 'corrLineNum', 'corrLineAmnt'], r.corrLines);
  counted(o, 'reportPriceInquiries', 'reportPriceInquiry', ['priceInquiryGroup', 'priceInquiryNum', 'priceInquiryAmnt'], r.priceInquiries);
  counted(o, 'reportOtherCorrs', 'reportOtherCorr', ['otherCorrType', 'otherCorrNum', 'otherCorrAmnt'], r.otherCorrs);
  o.leaf('reportReceiptDeliveryNum', r.deliveryNum);
  o.leaf('reportReceiptDeliveryAmnt', r.deliveryAmnt);
  o.leaf('reportTrainingNum', r.trainingNum);
  o.leaf('reportTrainingAmnt', r.trainingAmnt);
  o.open('reportCreditSales');
  o.leaf('creditSalesNum', 0);
  o.leaf('creditSalesAmnt', '0.00');
  o.close('reportCreditSales');
  o.open('reportCreditMemos');
  o.leaf('creditMemosNum', 0);
  o.leaf('creditMemosAmnt', '0.00');
  o.close('reportCreditMemos');
  counted(o, 'reportPayIns', 'reportPayIn', ['payInType', 'payInNum', 'payInAmnt'], r.payIns);
  counted(o, 'reportPayOuts', 'reportPayOut', ['payOutType', 'payOutNum', 'payOutAmnt'], r.payOuts);
  o.leaf('reportGrandTotalSales', r.grandTotalSales);
  o.leaf('reportGrandTotalReturn', r.grandTotalReturn);
  o.leaf('reportGrandTotalSalesNet', r.grandTotalNet);
  o.close('eventReport');
}

function vatBlock(o: Out, rate: Dec, vat: Dec, base: Dec): void {
  o.open('vat');
  o.leaf('vatCode', vatCodeOf(rate).code);
  o.leaf('vatPerc', percent(rate));
  o.leaf('vatAmnt', money2(vat));
  o.leaf('vatAmntTp', tp(base));
  o.leaf('vatBasAmnt', money2(base));
  o.close('vat');
}

function writeTransaction(o: Out, tx: CashTx, copyCount: number): void {
  const fis = tx.fis;
  const esr = tx.esr;
  const emp = text(esr, 'Opr') || undefined;
  const amntIn = amount(text(fis, 'AmntIn'));
  const taxA = lines(esr, 'TaxA');
  o.open('cashtransaction');
  o.leaf('nr', tx.fn, 35);
  o.leaf('transID', tx.sq, 35);
  o.leaf('transType', transTypeOf(tx));
  o.leaf('transAmntIn', money2(amntIn));
  o.leaf('transAmntEx', money2(amount(text(fis, 'AmntEx'))));
  o.leaf('amntTp', tp(amntIn));
  o.leaf('empID', emp, 35);
  o.leaf('transDate', text(fis, 'TransDate'));
  o.leaf('transTime', text(fis, 'TransTime'));
  o.leaf('refID', text(esr, 'RFN'), 9999);
  const posA = lines(esr, 'PosA').filter((l) => (isPosLine(l) && text(l, 'Void') !== '1') || isModLine(l));
  const groups = artGroupsOf(posA);
  posA.forEach((line, i) => {
    const v = lineVat(line, taxA);
    const mod = isModLine(line);
    o.open('ctLine');
    o.leaf('nr', tx.fn, 35);
    o.leaf('lineID', String(i + 1));
    o.leaf('lineType', mod ? (sign(v.gross) < 0 ? 'DSC' : 'SAL') : sign(v.gross) < 0 ? 'RET' : 'SAL');
    o.leaf('artGroupID', groups[i], 35);
    if (!mod) o.leaf('qnt', decimal6(qtyOf(line)));
    o.leaf('lineAmntIn', money2(v.gross));
    o.leaf('lineAmntEx', money2(v.net));
    o.leaf('amntTp', tp(v.gross));
    const pri = text(line, 'Pri');
    const ppu = pri === undefined ? undefined : parseDec(pri.trim());
    if (!mod && ppu) o.leaf('ppu', decimal6(ppu));
    o.leaf('empID', emp, 35);
    o.leaf('cashTransLineDescr', text(line, 'Dsc'), 9999);
    vatBlock(o, v.rate, v.vat, v.net);
    o.close('ctLine');
  });
  for (const t of taxA) {
    const rate = amount(text(t, 'Prc'));
    const gross = amount(text(t, 'Amt'));
    const tAmt = text(t, 'TAmt') !== undefined ? amount(text(t, 'TAmt')) : sub(gross, amount(text(t, 'Net')));
    const base = text(t, 'Net') !== undefined ? amount(text(t, 'Net')) : sub(gross, tAmt);
    vatBlock(o, rate, tAmt, base);
  }
  const pays = lines(esr, 'PayA');
  const rounding = pays.filter((p) => (text(p, 'PayG') ?? '').toLowerCase() === 'rounding').reduce((s, p) => add(s, amount(text(p, 'Amt'))), ZERO);
  if (cmp(rounding, ZERO) !== 0) {
    o.open('rounding');
    o.leaf('roundingAmnt', money2(rounding));
    o.close('rounding');
  }
  for (const p of pays) {
    if ((text(p, 'PayG') ?? '').toLowerCase() === 'rounding') continue;
    o.open('payment');
    o.leaf('paymentType', paymentTypeOf(text(p, 'PayG')));
    o.leaf('paidAmnt', money2(amount(text(p, 'Amt'))));
    o.leaf('empID', emp, 35);
    o.leaf('paymentRefID', text(p, 'UID'), 999);
    o.close('payment');
  }
  o.leaf('signature', text(fis, 'Signature') ?? '', 999);
  o.leaf('keyVersion', text(fis, 'KeyVersion') ?? '1', 50);
  o.leaf('receiptNum', 1);
  o.leaf('receiptCopyNum', Math.min(copyCount, 999));
  o.leaf('receiptProformaNum', 0);
  o.leaf('receiptDeliveryNum', 0);
  o.leaf('voidTransaction', tx.void ? 'true' : 'false');
  o.leaf('trainingID', tx.training ? 'true' : 'false');
  o.close('cashtransaction');
}

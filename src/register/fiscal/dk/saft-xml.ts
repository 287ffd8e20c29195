/**
 * Denmark: the SAF-T Cash Register file (UFST / Skattestyrelsen, Danish SAF-T Cash Register schema
 * v1.0.3, namespace urn:StandardAuditFile-Taxation-CashRegister:DK) of one register, built from its
 * journal records (records in, XML text out). The structure follows Norway's writer (no/saft-xml.ts) and
 * reuses its code tables and report figures (no/saft-report.ts); what Denmark adds or requires:
 * - company and location `streetAddress` with streetname, number, city, postalCode, country (from Cfg
 *   Cmp/Loc Adr, AdrNr, City, Zip, Ctry; '-' where the schema needs a value and Cfg has none; country DK);
 * - `vatCodeDetails`, one `periods/period` (the export's period), `employees` (firstName/surName split from
 *   OprN; the employee 'POS' for events and transactions without an operator), `articles` and `basics`;
 * - ctLine `artID` on every line: Pos.SKU, else Pos.ID, else a generated article per description
 *   ('D' + 16 hex digits of the SHA-256 of the description), listed in `articles`;
 * - event `empID` (the record's operator or 'POS'), `reportEmpPayments` in X/Z reports;
 * - per cashtransaction the values that were signed (Fis: FN, TransID, TransType, EmpID, TransDate,
 *   TransTime, AmntIn, AmntEx) verbatim, `certificateData` = the PEM of the certificate with Fis.CertSerial,
 *   `voidTransaction` and `trainingID` always. companyIdent and registerID are the signed Fis.CompanyIdent
 *   and Fis.RegisterID (an error when the period's transactions disagree), else the CVR and `registerId`.
 */
import { createHash } from 'node:crypto';
import { type Dec, ZERO, add, cmp, dec, fmt, parseDec, rescale, sign, significantScale, sub } from '../../../shared/money.js';
import { type Obj, lines, obj } from '../../codec/index.js';
import { escapeXml } from '../no/saft-xml.js';
import {
  BASICS, type CashTx, OTHER_ART_GROUP, type Report, amount, artGroupsOf, cashTxOf, isModLine, isPosLine,
  isX, isZ, lineVat, money2, paymentTypeOf, qtyOf, reportOf, text,
} from '../no/saft-report.js';

export const SAFT_DK_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:DK';
export const SAFT_DK_SCHEMA = 'Danish_SAF-T_Cash_Register_Schema_v_1.0.3.xsd';
/** The employee of events and transactions without an operator. */
export const POS_EMPLOYEE = 'POS';

export interface DanishSaftInput {
  /** journal record data of ONE register in SQ order, from its first record (older records feed the report grand totals) */
  records: Obj[];
  /** the Cfg (or a record `{ Cfg }`): Cmp {Nam, TaxId, Adr, AdrNr, Zip, City, Ctry}, Loc {TL, Nam, Adr, AdrNr, Zip, City, Ctry}, Trm {TT} */
  cfg: Obj;
  registerId: string;
  /** YYYY-MM-DD or a YYYY-MM-DDThh:mm:ss prefix, compared with each record's TS; both inclusive */
  period: { from?: string; till?: string };
  created: Date;
  software: { name: string; version: string; company: string };
  /** the signing certificates as PEM, by serial number (uppercase hex, as Fis.CertSerial) */
  certificates: Record<string, string>;
  currency?: 'DKK';
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** The CVR number: the digits of Cfg.Cmp.TaxId ('DK12345678' -> '12345678'). */
export function cvrNumber(taxId: string | undefined): string {
  return (taxId ?? '').replace(/^\s*DK/i, '').replace(/\D/g, '');
}

/** `SAF-T Cash Register_<cvr8>_<yyyymmddhhmmss>_1_1.xml` (local time of `created`; file 1 of 1). */
export function danishSaftFileName(cvr: string, created: Date): string {
  const c = created;
  const stamp = `${c.getFullYear()}${pad(c.getMonth() + 1)}${pad(c.getDate())}${pad(c.getHours())}${pad(c.getMinutes())}${pad(c.getSeconds())}`;
  return `SAF-T Cash Register_${cvrNumber(cvr)}_${stamp}_1_1.xml`;
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

/** A record's time: TS as date and time, else ESR.D. */
function whenOf(r: Obj): { date: string; time: string } {
  const ts = text(r, 'TS') ?? text(obj(r, 'ESR'), 'D') ?? '';
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})/.exec(ts);
  if (m) return { date: m[1] as string, time: m[2] as string };
  const d = /^(\d{4}-\d{2}-\d{2})/.exec(ts);
  return { date: d ? (d[1] as string) : '1970-01-01', time: '00:00:00' };
}

function stampOf(r: Obj): string | undefined {
  return text(r, 'TS') ?? text(obj(r, 'ESR'), 'D');
}

function inPeriod(r: Obj, p: DanishSaftInput['period']): boolean {
  const ts = stampOf(r);
  if (ts === undefined) return true;
  if (p.from && ts.slice(0, p.from.length) < p.from) return false;
  if (p.till && ts.slice(0, p.till.length) > p.till) return false;
  return true;
}

function afterPeriod(r: Obj, p: DanishSaftInput['period']): boolean {
  const ts = stampOf(r);
  return ts !== undefined && p.till !== undefined && ts.slice(0, p.till.length) > p.till;
}

const tp = (d: Dec): 'C' | 'D' => (sign(d) < 0 ? 'D' : 'C');

function percent(rate: Dec): string {
  return fmt(rescale(rate, Math.min(3, Math.max(2, significantScale(rate)))));
}

function decimal6(d: Dec): string {
  const r = rescale(d, Math.min(6, d.s));
  return fmt(r, significantScale(r));
}

/**
 * A VAT rate's code in the file and its standard VAT code. The Danish code list is not published with
 * the schema; 'S' (standard, 25 %) and 'Z' (zero-rated) as the Danish sample file uses them, other
 * rates get a code of their own with standard code 'O' (other) [to confirm with UFST's code list].
 */
export function danishVatCode(rate: Dec): { code: string; standard: string; desc: string } {
  const pct = percent(rate);
  if (cmp(rate, dec('25')) === 0) return { code: 'S', standard: 'S', desc: 'Moms 25 %' };
  if (sign(rate) === 0) return { code: 'Z', standard: 'Z', desc: 'Momsfri 0 %' };
  return { code: `R${pct}`.slice(0, 20), standard: 'O', desc: `Moms ${pct} %` };
}

interface EventOut {
  id: string;
  type: string;
  transId?: string;
  empId: string;
  date: string;
  time: string;
  text?: string;
  report?: Report;
  empPayments?: Array<{ emp: string; type: string; num: number; amnt: Dec }>;
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

/** The operator of a record, else undefined. */
function operatorOf(r: Obj): string | undefined {
  if (r._ === 'Audit') return text(obj(r, 'Audit'), 'Opr') || undefined;
  if (r._ === 'Tra') return text(obj(r, 'ESR'), 'Opr') || undefined;
  return undefined;
}

/** The empID the transaction was signed with (Fis.EmpID), else its operator, else POS. */
function txEmp(tx: CashTx): string {
  return text(tx.fis, 'EmpID') || text(tx.esr, 'Opr') || POS_EMPLOYEE;
}

/** A line's article: SKU, else ID, else one generated from its description. */
export function articleIdOf(line: Obj): string {
  const own = (text(line, 'SKU') || text(line, 'ID') || '').trim();
  if (own) return [...own].slice(0, 36).join('');
  return `D${createHash('sha256').update(text(line, 'Dsc') ?? '', 'utf8').digest('hex').slice(0, 16).toUpperCase()}`;
}

/** Per employee and payment type: the payments of the report window (as reportOf counts them). */
function empPaymentsOf(window: readonly Obj[]): EventOut['empPayments'] {
  const m = new Map<string, { emp: string; type: string; num: number; amnt: Dec }>();
  for (const r of window) {
    const tx = cashTxOf(r);
    if (!tx || tx.training || tx.payin || tx.payout) continue;
    const emp = txEmp(tx);
    for (const pay of lines(tx.esr, 'PayA')) {
      const g = (text(pay, 'PayG') ?? '').toLowerCase();
      if (g === 'rounding') continue;
      const type = paymentTypeOf(g);
      const key = `${emp}\u0000${type}`;
      const cur = m.get(key) ?? { emp, type, num: 0, amnt: ZERO };
      m.set(key, { emp, type, num: cur.num + (g === 'change' ? 0 : 1), amnt: add(cur.amnt, amount(text(pay, 'Amt'))) });
    }
  }
  const list = [...m.values()];
  return list.length ? list : [{ emp: POS_EMPLOYEE, type: 'CASH', num: 0, amnt: ZERO }];
}

/** One value of the period's transactions (Fis[key]); an error when they disagree (the signatures cover it). */
function signedValue(txs: readonly CashTx[], key: string): string | undefined {
  let value: string | undefined;
  for (const tx of txs) {
    const v = text(tx.fis, key);
    if (v === undefined) continue;
    if (value !== undefined && v !== value) {
      throw new Error(`the cash transactions of the period were signed with different ${key} values ("${value}", "${v}" at nr ${tx.fn}); export the periods separately`);
    }
    value = v;
  }
  return value;
}

/** The Danish SAF-T Cash Register XML of one register for a period. */
export function danishSaftXml(input: DanishSaftInput): string {
  const cfg = obj(input.cfg, 'Cfg') ?? input.cfg;
  const cmp0 = obj(cfg, 'Cmp') ?? {};
  const loc = obj(cfg, 'Loc') ?? {};
  const companyName = text(cmp0, 'Nam') || '-';
  const currency = input.currency ?? 'DKK';
  const all = input.records;

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

  const periodTxs = all.filter((r) => inPeriod(r, input.period)).map(cashTxOf).filter((t): t is CashTx => t !== undefined);
  const cvr = signedValue(periodTxs, 'CompanyIdent') ?? cvrNumber(text(cmp0, 'TaxId'));
  const registerId = signedValue(periodTxs, 'RegisterID') ?? input.registerId;

  const events: EventOut[] = [];
  const txs: CashTx[] = [];
  const employees = new Map<string, { name?: string; date: string; time: string }>();
  const addEmployee = (id: string, when: { date: string; time: string }, name?: string): void => {
    const known = employees.get(id);
    if (!known) employees.set(id, { ...(name ? { name } : {}), ...when });
    else if (!known.name && name) known.name = name;
  };
  let lastZ = -1;
  let zCount = 0;
  let first: { date: string; time: string } | undefined;
  let last: { date: string; time: string } | undefined;

  all.forEach((r, i) => {
    const z = isZ(r);
    if (z) zCount += 1;
    const x = isX(r);
    if (inPeriod(r, input.period) && r._ !== 'Cfg') {
      const when = whenOf(r);
      first ??= when;
      last = when;
      const opr = operatorOf(r);
      const emp = opr ?? POS_EMPLOYEE;
      addEmployee(emp, when, r._ === 'Tra' ? text(obj(r, 'ESR'), 'OprN') : undefined);
      const sq = text(r, 'SQ') ?? String(i + 1);
      const tx = cashTxOf(r);
      if (tx) {
        txs.push(tx);
        addEmployee(txEmp(tx), when, text(tx.esr, 'OprN'));
        events.push({
          id: sq, type: receiptEventType(tx), transId: text(tx.fis, 'TransID') ?? sq, empId: txEmp(tx),
          date: text(tx.fis, 'TransDate') ?? when.date, time: text(tx.fis, 'TransTime') ?? when.time,
        });
      } else if (r._ === 'Tra') {
        const bc = (text(r, 'BC') ?? '').toLowerCase();
        const fis = obj(r, 'Fis') ?? {};
        const base = { id: sq, empId: emp, ...when };
        if (bc === 'login') events.push({ ...base, type: 'EMPIN' });
        else if (bc === 'logout') events.push({ ...base, type: 'EMPOUT' });
        else if (bc === 'reprint') {
          const rfn = text(fis, 'RFN') ?? '';
          const orig = sqByFn.get(rfn);
          events.push({ ...base, type: 'COPYREC', ...(orig ? { transId: orig } : {}), text: `Kopi af kvittering nr ${rfn}` });
        } else if (x || z) {
          const report = reportOf({
            records: all.slice(0, i + 1), from: lastZ + 1, kind: z ? 'Z report' : 'X report',
            reportId: z ? String(zCount) : `X${sq}`, company: { ident: cvr, name: companyName },
            registerId, date: when.date, time: when.time,
          });
          events.push({ ...base, type: z ? 'ZREP' : 'XREP', text: z ? 'Z-rapport' : 'X-rapport', report, empPayments: empPaymentsOf(all.slice(lastZ + 1, i + 1)) });
        } else {
          events.push({ ...base, type: 'OTHEREVT', text: `${text(r, 'BC') ?? 'event'}${text(r, 'BCF') ? ` (${text(r, 'BCF')})` : ''}` });
        }
      } else if (r._ === 'Audit') {
        const audit = obj(r, 'Audit') ?? {};
        const type = text(audit, 'Type') ?? '';
        const t = [AUDIT_EVENTS[type] ? undefined : type, text(audit, 'Txt')].filter(Boolean).join(': ');
        events.push({ id: sq, type: AUDIT_EVENTS[type] ?? 'OTHEREVT', empId: emp, ...when, ...(t ? { text: t } : {}) });
      } else if (r._ === 'log') {
        const ev = (text(r, 'Event') ?? '').toLowerCase();
        events.push({ id: sq, type: ev === 'start' ? 'POSSTART' : ev === 'stop' ? 'POSEND' : 'OTHEREVT', empId: emp, ...when, ...(ev === 'start' || ev === 'stop' ? {} : { text: ev || 'log' }) });
      }
    }
    if (z) lastZ = i;
  });

  // codes, rates, article groups and articles used
  const usedBasics = new Set<string>();
  const artGroups = new Map<string, string>();
  const articles = new Map<string, { desc: string; group: string; date: string }>();
  const rates = new Map<string, Dec>();
  for (const e of events) {
    usedBasics.add(e.type);
    if (e.report) {
      for (const p of e.report.payments) usedBasics.add(p.id);
      for (const g of e.report.artGroups) if (!artGroups.has(g.id)) artGroups.set(g.id, g.id === OTHER_ART_GROUP ? 'Other' : g.id);
    }
    for (const p of e.empPayments ?? []) usedBasics.add(p.type);
  }
  for (const tx of txs) {
    usedBasics.add(text(tx.fis, 'TransType') ?? 'OTHERTRANS');
    const posA = lines(tx.esr, 'PosA').filter((l) => isPosLine(l) || isModLine(l));
    const groups = artGroupsOf(posA);
    posA.forEach((line, i) => {
      const group = groups[i] as string;
      if (isPosLine(line) && (!artGroups.has(group) || artGroups.get(group) === group)) artGroups.set(group, text(line, 'CatN') || (group === OTHER_ART_GROUP ? 'Other' : group));
      else if (!artGroups.has(group)) artGroups.set(group, group === OTHER_ART_GROUP ? 'Other' : group);
      const id = articleIdOf(line);
      if (!articles.has(id)) articles.set(id, { desc: text(line, 'Dsc') || id, group, date: text(tx.fis, 'TransDate') ?? whenOf(tx.record).date });
      usedBasics.add(isModLine(line) ? (sign(amount(text(line, 'Amt'))) < 0 ? 'DSC' : 'SAL') : sign(amount(text(line, 'Amt'))) < 0 ? 'RET' : 'SAL');
    });
    for (const t of lines(tx.esr, 'TaxA')) {
      const rate = amount(text(t, 'Prc'));
      rates.set(fmt(rescale(rate, 3)), rate);
    }
    for (const pay of lines(tx.esr, 'PayA')) {
      if ((text(pay, 'PayG') ?? '').toLowerCase() !== 'rounding') usedBasics.add(paymentTypeOf(text(pay, 'PayG')));
    }
  }
  for (const r of ['0', '25']) rates.set(fmt(rescale(dec(r), 3)), dec(r));
  const created = input.created;
  const startDate = input.period.from?.slice(0, 10) ?? first?.date ?? isoDate(created);
  const endDate = input.period.till?.slice(0, 10) ?? last?.date ?? isoDate(created);
  const periodTime = (p: string | undefined, fallback: string): string => (p && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(p) ? p.slice(11, 19) : fallback);
  if (articles.size === 0) articles.set('MISC', { desc: 'Diverse', group: OTHER_ART_GROUP, date: startDate });
  if (employees.size === 0) addEmployee(POS_EMPLOYEE, { date: startDate, time: '00:00:00' });

  const o = new Out();
  o.raw('<?xml version="1.0" encoding="UTF-8"?>');
  o.raw(`<auditfile xmlns="${SAFT_DK_NAMESPACE}">`);
  o.open('header');
  o.leaf('fiscalYear', startDate.slice(0, 4));
  o.leaf('startDate', startDate);
  o.leaf('endDate', endDate);
  o.leaf('curCode', currency);
  o.leaf('dateCreated', isoDate(created));
  o.leaf('timeCreated', `${pad(created.getHours())}:${pad(created.getMinutes())}:${pad(created.getSeconds())}`);
  o.leaf('softwareDesc', input.software.name || '-', 100);
  o.leaf('softwareVersion', input.software.version || '-', 20);
  o.leaf('softwareCompanyName', input.software.company || '-', 100);
  o.leaf('auditfileVersion', '1.0.3');
  o.leaf('headerComment', `Cash register ${registerId}`, 999);
  o.close('header');

  o.open('company');
  o.leaf('companyIdent', cvr || '-', 36);
  o.leaf('companyName', companyName, 100);
  o.leaf('taxRegistrationCountry', 'DK');
  if (cvr) o.leaf('taxRegIdent', cvr, 50);
  address(o, cmp0, cmp0);

  o.open('vatCodeDetails');
  for (const rate of [...rates.values()].sort(cmp)) {
    const v = danishVatCode(rate);
    o.open('vatCodeDetail');
    o.leaf('vatCode', v.code);
    o.leaf('dateOfEntry', startDate);
    o.leaf('vatDesc', v.desc);
    o.leaf('standardVatCode', v.standard);
    o.close('vatCodeDetail');
  }
  o.close('vatCodeDetails');

  o.open('periods');
  o.open('period');
  o.leaf('periodNumber', 1);
  o.leaf('periodDesc', `${startDate} - ${endDate}`);
  o.leaf('startDatePeriod', startDate);
  o.leaf('startTimePeriod', periodTime(input.period.from, '00:00:00'));
  o.leaf('endDatePeriod', endDate);
  o.leaf('endTimePeriod', periodTime(input.period.till, '23:59:59'));
  o.close('period');
  o.close('periods');

  o.open('employees');
  for (const [id, e] of employees) {
    const name = (e.name ?? '').trim();
    const [firstName, ...rest] = name ? name.split(/\s+/) : [id === POS_EMPLOYEE ? 'POS' : id];
    o.open('employee');
    o.leaf('empID', id, 36);
    o.leaf('dateOfEntry', e.date);
    o.leaf('timeOfEntry', e.time);
    o.leaf('firstName', firstName || id, 50);
    o.leaf('surName', rest.join(' ') || (id === POS_EMPLOYEE ? 'System' : firstName || id), 100);
    o.close('employee');
  }
  o.close('employees');

  o.open('articles');
  for (const [id, a] of articles) {
    o.open('article');
    o.leaf('artID', id, 36);
    o.leaf('dateOfEntry', a.date);
    o.leaf('artGroupID', a.group, 36);
    o.leaf('artDesc', a.desc, 999);
    o.close('article');
  }
  o.close('articles');

  o.open('basics');
  for (const [id, desc] of artGroups) {
    o.open('basic');
    o.leaf('basicType', '04');
    o.leaf('basicID', id, 36);
    o.leaf('predefinedBasicID', /^04\d{3}$/.test(id) ? id : OTHER_ART_GROUP);
    o.leaf('basicDesc', desc, 999);
    o.close('basic');
  }
  const basics = [...usedBasics].map((id) => BASICS[id]).filter((b) => b !== undefined);
  for (const bsc of basics.sort((x, y) => (x.type + x.id < y.type + y.id ? -1 : 1))) {
    o.open('basic');
    o.leaf('basicType', bsc.type);
    o.leaf('basicID', bsc.id);
    o.leaf('predefinedBasicID', bsc.predefined);
    o.leaf('basicDesc', bsc.desc);
    o.close('basic');
  }
  o.close('basics');

  o.open('location');
  o.leaf('name', text(loc, 'Nam') || text(loc, 'TL') || companyName, 100);
  address(o, loc, cmp0);
  o.open('cashregister');
  o.leaf('registerID', registerId, 100);
  for (const e of events) writeEvent(o, e);
  for (const tx of txs) writeTransaction(o, tx, copies.get(tx.fn) ?? 0, input.certificates);
  o.close('cashregister');
  o.close('location');
  o.close('company');
  o.raw('</auditfile>');
  return o.toString();
}

function isoDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** streetAddress (required in DK, all five parts): from `a`, then `fallback` (the company), else '-'. */
function address(o: Out, a: Obj, fallback: Obj): void {
  const has = Boolean(text(a, 'Adr') || text(a, 'City') || text(a, 'Zip'));
  const src = has ? a : fallback;
  const ctry = (text(src, 'Ctry') ?? '').trim().toUpperCase();
  o.open('streetAddress');
  o.leaf('streetname', text(src, 'Adr') || '-', 100);
  o.leaf('number', text(src, 'AdrNr') || '-', 20);
  o.leaf('city', text(src, 'City') || '-', 50);
  o.leaf('postalCode', text(src, 'Zip') || '-', 20);
  o.leaf('country', /^[A-Z]{2}$/.test(ctry) ? ctry : 'DK');
  o.close('streetAddress');
}

function writeEvent(o: Out, e: EventOut): void {
  o.open('event');
  o.leaf('eventID', e.id, 36);
  o.leaf('eventType', e.type);
  o.leaf('transID', e.transId, 36);
  o.leaf('empID', e.empId, 36);
  o.leaf('eventDate', e.date);
  o.leaf('eventTime', e.time);
  o.leaf('eventText', e.text, 9999);
  if (e.report) writeReport(o, e.report, e.empPayments ?? []);
  o.close('event');
}

function counted(o: Out, list: string, item: string, names: [string, string, string], entries: Report['artGroups']): void {
  o.open(list);
  for (const c of entries) {
    o.open(item);
    o.leaf(names[0], c.id, 36);
    o.leaf(names[1], c.num);
    o.leaf(names[2], c.amnt);
    o.close(item);
  }
  o.close(list);
}

function writeReport(o: Out, r: Report, empPayments: NonNullable<EventOut['empPayments']>): void {
  o.open('eventReport');
  o.leaf('reportID', r.reportId, 36);
  o.leaf('reportType', r.kind);
  o.leaf('companyIdent', r.companyIdent || '-', 36);
  o.leaf('companyName', r.companyName, 100);
  o.leaf('reportDate', r.date);
  o.leaf('reportTime', r.time);
  o.leaf('registerID', r.registerId, 100);
  o.open('reportTotalCashSales');
  o.leaf('totalCashSaleAmnt', r.totalCashSale);
  o.close('reportTotalCashSales');
  counted(o, 'reportArtGroups', 'reportArtGroup', ['artGroupID', 'artGroupNum', 'artGroupAmnt'], r.artGroups);
  counted(o, 'reportPayments', 'reportPayment', ['paymentType', 'paymentNum', 'paymentAmnt'], r.payments);
  o.open('reportEmpPayments');
  for (const p of empPayments) {
    o.open('reportEmpPayment');
    o.leaf('empID', p.emp, 36);
    o.leaf('paymentType', p.type, 36);
    o.leaf('paymentNum', p.num);
    o.leaf('paymentAmnt', money2(p.amnt));
    o.close('reportEmpPayment');
  }
  o.close('reportEmpPayments');
  o.open('reportCashSalesVat');
  // Norway's report lists 0, 12, 15 and 25 %: Denmark's rates (0 and 25 %) always, others when used
  for (const v of r.vat) {
    const rate = parseDec(v.perc) ?? ZERO;
    const dkRate = sign(rate) === 0 || cmp(rate, dec('25')) === 0;
    if (!dkRate && sign(amount(v.base)) === 0 && sign(amount(v.vat)) === 0) continue;
    o.open('reportCashSaleVat');
    o.leaf('vatCode', danishVatCode(rate).code);
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
  counted(o, 'reportPayIns', 'reportPayIn', ['payInType', 'payInNum', 'payInAmnt'], r.payIns);
  counted(o, 'reportPayOuts', 'reportPayOut', ['payOutType', 'payOutNum', 'payOutAmnt'], r.payOuts);
  o.leaf('reportGrandTotalSales', r.grandTotalSales);
  o.leaf('reportGrandTotalReturn', r.grandTotalReturn);
  o.leaf('reportGrandTotalSalesNet', r.grandTotalNet);
  o.close('eventReport');
}

function vatBlock(o: Out, rate: Dec, vat: Dec, base: Dec): void {
  o.open('vat');
  o.leaf('vatCode', danishVatCode(rate).code);
  o.leaf('vatPerc', percent(rate));
  o.leaf('vatAmnt', money2(vat));
  o.leaf('vatAmntTp', tp(base));
  o.leaf('vatBasAmnt', money2(base));
  o.close('vat');
}

function writeTransaction(o: Out, tx: CashTx, copyCount: number, certificates: Record<string, string>): void {
  const fis = tx.fis;
  const esr = tx.esr;
  const emp = txEmp(tx);
  const serial = (text(fis, 'CertSerial') ?? '').toUpperCase();
  const pem = certificates[serial] ?? certificates[text(fis, 'CertSerial') ?? ''];
  if (!pem) throw new Error(`no certificate with serial "${serial}" for cash transaction nr ${tx.fn} (SQ ${tx.sq})`);
  // the signed values, verbatim: the validator rebuilds the signed string from these texts
  const amntInText = text(fis, 'AmntIn') ?? money2(tx.total);
  const amntIn = amount(amntInText);
  const taxA = lines(esr, 'TaxA').filter((t) => !text(t, 'TTY'));
  o.open('cashtransaction');
  o.leaf('nr', tx.fn);
  o.leaf('transID', text(fis, 'TransID') ?? tx.sq);
  o.leaf('transType', text(fis, 'TransType') ?? 'OTHERTRANS');
  o.leaf('transAmntIn', amntInText);
  o.leaf('transAmntEx', text(fis, 'AmntEx') ?? money2(amntIn));
  o.leaf('amntTp', tp(amntIn));
  o.leaf('empID', emp);
  o.leaf('transDate', text(fis, 'TransDate'));
  o.leaf('transTime', text(fis, 'TransTime'));
  o.leaf('refID', text(esr, 'RFN'), 9999);
  const posA = lines(esr, 'PosA').filter((l) => (isPosLine(l) && text(l, 'Void') !== '1') || isModLine(l));
  const groups = artGroupsOf(posA);
  posA.forEach((line, i) => {
    const v = lineVat(line, taxA);
    const mod = isModLine(line);
    o.open('ctLine');
    o.leaf('nr', tx.fn, 36);
    o.leaf('lineID', String(i + 1));
    o.leaf('lineType', mod ? (sign(v.gross) < 0 ? 'DSC' : 'SAL') : sign(v.gross) < 0 ? 'RET' : 'SAL');
    o.leaf('artGroupID', groups[i], 36);
    o.leaf('artID', articleIdOf(line));
    // the validator wants a quantity on every line (a discount counts as 1)
    o.leaf('qnt', mod ? '1' : decimal6(qtyOf(line)));
    o.leaf('lineAmntIn', money2(v.gross));
    o.leaf('lineAmntEx', money2(v.net));
    o.leaf('amntTp', tp(v.gross));
    const pri = text(line, 'Pri');
    const ppu = pri === undefined ? undefined : parseDec(pri.trim());
    if (!mod && ppu) o.leaf('ppu', decimal6(ppu));
    o.leaf('empID', emp, 36);
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
    o.leaf('empID', emp, 36);
    o.leaf('paymentRefID', text(p, 'UID'), 999);
    o.close('payment');
  }
  o.leaf('signature', text(fis, 'Signature') ?? '', 999);
  o.leaf('keyVersion', text(fis, 'KeyVersion') ?? '1', 50);
  o.leaf('certificateData', pem.trim());
  o.leaf('receiptNum', 1);
  o.leaf('receiptCopyNum', Math.min(copyCount, 999));
  o.leaf('receiptProformaNum', 0);
  o.leaf('receiptDeliveryNum', 0);
  o.leaf('voidTransaction', tx.void ? 'true' : 'false');
  o.leaf('trainingID', tx.training ? 'true' : 'false');
  o.close('cashtransaction');
}

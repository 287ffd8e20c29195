/**
 * The SAF-T Cash Register file of one register, built from its journal records after a country's profile
 * (SaftProfile). Per record in the period: events (login/logout, copy, X/Z report with eventReport, Audit,
 * POS start/stop) and, per signed cash transaction, its receipt event; then the cashtransactions with lines,
 * VAT, payments and the chained signature as journaled. Codes: codes.ts; report figures: report.ts.
 */
import { type Dec, ZERO, add, cmp, fmt, rescale } from '../../../shared/money.js';
import { type Obj, lines, obj } from '../../codec/index.js';
import { escapeAttr } from '../../codec/xml-text.js';
import { BASICS, OTHER_ART_GROUP, paymentTypeOf } from './codes.js';
import { type EmpPayment, transTypeOf, writeEvent, writeTransaction } from './elements.js';
import { isoDate, pad } from './format.js';
import { type PassWriter, type SaftScan, runPasses, runPassesSync } from './passes.js';
import type { SaftInput, SaftProfile, SaftStreamInput, SaftWriterOptions } from './profile.js';
import { type CashTx, amount, artGroupsOf, cashTxOf, isX, isZ, lineTypeOf, text, vatTaxA } from './records.js';
import { type Report, ReportTally } from './report.js';
import { XmlOut } from './xml-out.js';
import { isMod, isPos } from '../../esr/tax.js';

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

/** The SAF-T Cash Register XML of one register for a period after `profile`, as text chunks (records read twice, see runPasses). */
export function saftXmlChunks(profile: SaftProfile, input: SaftStreamInput & SaftWriterOptions): AsyncGenerator<string> {
  return runPasses(new SaftWriter(profile, input), input.records, input.onScanned);
}

/** The SAF-T Cash Register XML of one register for a period after `profile` (all records in memory; see saftXmlChunks). */
export function saftXml(profile: SaftProfile, input: SaftInput & SaftWriterOptions): string {
  return runPassesSync(new SaftWriter(profile, input), input.records);
}

/** Per employee and payment type: the payments of the report window (as the report counts them), kept while walking. */
class EmpPayments {
  private m = new Map<string, EmpPayment>();
  constructor(private readonly employeeOf: (tx: CashTx) => string, private readonly posEmployee: string) {}
  add(tx: CashTx): void {
    if (tx.training || tx.payin || tx.payout) return;
    const emp = this.employeeOf(tx);
    for (const pay of lines(tx.esr, 'PayA')) {
      const g = (text(pay, 'PayG') ?? '').toLowerCase();
      if (g === 'rounding') continue;
      const type = paymentTypeOf(g);
      const key = `${emp}\u0000${type}`;
      const cur = this.m.get(key) ?? { emp, type, num: 0, amnt: ZERO };
      this.m.set(key, { emp, type, num: cur.num + (g === 'change' ? 0 : 1), amnt: add(cur.amnt, amount(text(pay, 'Amt'))) });
    }
  }
  list(): EmpPayment[] {
    const list = [...this.m.values()];
    return list.length ? list : [{ emp: this.posEmployee, type: 'CASH', num: 0, amnt: ZERO }];
  }
  clear(): void {
    this.m = new Map();
  }
}

/** The writer of every country's file, after its profile. */
export class SaftWriter implements PassWriter {
  private readonly o = new XmlOut();
  /** the cashtransactions, at their depth in cashregister */
  private readonly t = new XmlOut(3);
  private readonly cmp0: Obj;
  private readonly loc: Obj;
  private readonly companyName: string;
  private readonly certificateOf: (serial: string) => string | undefined;
  // first pass
  /** FN -> SQ of every cash transaction up to the end of the period */
  private readonly sqByFn = new Map<string, string>();
  /** FN -> total of every cash transaction (copy amounts) */
  private readonly totals = new Map<string, Dec>();
  private readonly copies = new Map<string, number>();
  private readonly tally: ReportTally;
  private readonly empPayments: EmpPayments | undefined;
  private readonly reports = new Map<number, { report: Report; empPayments?: EmpPayment[] }>();
  private readonly employees = new Map<string, { name?: string; date: string; time: string }>();
  private readonly usedBasics = new Set<string>();
  private readonly artGroups = new Map<string, string>();
  private readonly articles = new Map<string, { desc: string; group: string; date: string }>();
  private readonly rates = new Map<string, Dec>();
  /** the signed CompanyIdent and RegisterID of the period's transactions (one value each) */
  private readonly signed: Record<'CompanyIdent' | 'RegisterID', { value: string } | undefined> = { CompanyIdent: undefined, RegisterID: undefined };
  private zCount = 0;
  private ended = false;
  private first: { date: string; time: string } | undefined;
  private last: { date: string; time: string } | undefined;
  private previousTx: { nr: string; signature: string } | undefined;
  private previous: { nr: string; signature: string } | undefined;
  private firstExported = true;
  private txCount = 0;
  private eventCount = 0;
  private ident = '';
  private registerId = '';
  lastIndex = -1;

  constructor(private readonly p: SaftProfile, private readonly input: SaftWriterOptions) {
    this.tally = new ReportTally(p, this.totals);
    const cfg = obj(input.cfg, 'Cfg') ?? input.cfg;
    this.cmp0 = obj(cfg, 'Cmp') ?? {};
    this.loc = obj(cfg, 'Loc') ?? {};
    this.companyName = this.fill(text(this.cmp0, 'Nam') ?? '');
    const certs = input.certificates ?? {};
    this.certificateOf = typeof certs === 'function' ? certs : (serial) => certs[serial.toUpperCase()] ?? certs[serial];
    if (p.required) this.empPayments = new EmpPayments((tx) => p.txEmployee(tx) ?? '', p.required.posEmployee);
    for (const r of p.baseRates) this.rates.set(fmt(rescale(r, 3)), r);
  }

  /** `v`, or the profile's blank where `v` is empty */
  private fill(v: string): string {
    return this.p.blank !== undefined && !v ? this.p.blank : v;
  }

  get size(): number {
    return this.o.size;
  }

  take(): string {
    return this.o.take();
  }

  get transactionsSize(): number {
    return this.t.size;
  }

  takeTransactions(): string {
    return this.t.take();
  }

  private addEmployee(id: string, when: { date: string; time: string }, name?: string): void {
    const known = this.employees.get(id);
    if (!known) this.employees.set(id, { ...(name ? { name } : {}), ...when });
    // where every record names an employee, a name seen later completes one first seen without
    else if (this.p.required && !known.name && name) known.name = name;
  }

  /** One value of the period's transactions (Fis[key]); an error when they disagree (the signatures cover it). */
  private signedValue(tx: CashTx, key: 'CompanyIdent' | 'RegisterID'): void {
    const v = text(tx.fis, key);
    if (v === undefined) return;
    const known = this.signed[key];
    if (known !== undefined && v !== known.value) {
      throw new Error(`the cash transactions of the period were signed with different ${key} values ("${known.value}", "${v}" at nr ${tx.fn}); export the periods separately`);
    }
    this.signed[key] = { value: v };
  }

  /** The certificate (PEM) a transaction was signed under; an error when there is none. */
  private certificate(tx: CashTx): string {
    const serial = text(tx.fis, 'CertSerial') ?? '';
    const pem = this.certificateOf(serial);
    if (!pem) throw new Error(`no certificate with serial "${serial.toUpperCase()}" for cash transaction nr ${tx.fn} (SQ ${tx.sq})`);
    return pem;
  }

  scan(r: Obj, i: number): void {
    const { p } = this;
    const tx = cashTxOf(r);
    if (!this.ended && afterPeriod(r, this.input.period)) this.ended = true;
    if (!this.ended) {
      if (tx) this.sqByFn.set(tx.fn, tx.sq);
      if (r._ === 'Tra' && (text(r, 'BC') ?? '').toLowerCase() === 'reprint') {
        const rfn = text(obj(r, 'Fis'), 'RFN');
        if (rfn) this.copies.set(rfn, (this.copies.get(rfn) ?? 0) + 1);
      }
    }
    if (tx) this.totals.set(tx.fn, tx.total);
    this.tally.add(r, tx);
    if (tx) this.empPayments?.add(tx);
    const z = isZ(r);
    if (z) this.zCount += 1;
    if (inPeriod(r, this.input.period) && r._ !== 'Cfg') {
      this.lastIndex = i;
      const when = whenOf(r);
      this.first ??= when;
      this.last = when;
      const emp = operatorOf(r) ?? p.required?.posEmployee;
      if (emp) this.addEmployee(emp, when, r._ === 'Tra' ? text(obj(r, 'ESR'), 'OprN') : undefined);
      if (tx) {
        if (p.signedFields) {
          this.signedValue(tx, 'CompanyIdent');
          this.signedValue(tx, 'RegisterID');
        }
        if (p.required) this.certificate(tx);
        if (this.firstExported && tx.fn !== '1' && this.previousTx) this.previous = this.previousTx;
        this.firstExported = false;
        this.txCount += 1;
        const txEmp = p.txEmployee(tx);
        if (txEmp) this.addEmployee(txEmp, when, text(tx.esr, 'OprN'));
        this.usedBasics.add(p.signedFields ? (text(tx.fis, 'TransType') ?? 'OTHERTRANS') : transTypeOf(tx));
        const posA = lines(tx.esr, 'PosA').filter((l) => isPos(l) || isMod(l));
        const groups = artGroupsOf(posA);
        posA.forEach((line, k) => {
          const group = groups[k] as string;
          const desc = p.artGroupDesc(line, group);
          if (desc !== undefined && (isPos(line) ? !this.artGroups.has(group) || this.artGroups.get(group) === group : !this.artGroups.has(group))) {
            this.artGroups.set(group, desc);
          }
          if (p.required) {
            const id = p.required.articleId(line);
            if (!this.articles.has(id)) this.articles.set(id, { desc: text(line, 'Dsc') || id, group, date: text(tx.fis, 'TransDate') ?? when.date });
          }
          this.usedBasics.add(lineTypeOf(line));
        });
        for (const t of vatTaxA(tx.esr)) {
          const rate = amount(text(t, 'Prc'));
          this.rates.set(fmt(rescale(rate, 3)), rate);
        }
        for (const pay of lines(tx.esr, 'PayA')) {
          if ((text(pay, 'PayG') ?? '').toLowerCase() !== 'rounding') this.usedBasics.add(paymentTypeOf(text(pay, 'PayG')));
        }
      }
      const type = eventTypeOf(r, tx);
      if (type) {
        this.eventCount += 1;
        this.usedBasics.add(type);
      }
      if (type === 'ZREP' || type === 'XREP') {
        const sq = text(r, 'SQ') ?? String(i + 1);
        // the Z's own number, as printed (Fis.Z.ZI), else its count in the file
        const zi = p.zNumberFromFis ? text(obj(obj(r, 'Fis') ?? {}, 'Z'), 'ZI') : undefined;
        // companyIdent and registerID: set when written (the signed values of the whole period)
        const report = this.tally.report({
          kind: z ? 'Z report' : 'X report', reportId: z ? (zi ?? String(this.zCount)) : `X${sq}`, company: { ident: '', name: this.companyName },
          registerId: '', date: when.date, time: when.time,
        });
        const empPayments = this.empPayments?.list();
        this.reports.set(i, { report, ...(empPayments ? { empPayments } : {}) });
        for (const pm of report.payments) this.usedBasics.add(pm.id);
        for (const g of report.artGroups) if (!this.artGroups.has(g.id)) this.artGroups.set(g.id, g.id === OTHER_ART_GROUP ? 'Other' : g.id);
        for (const pm of empPayments ?? []) this.usedBasics.add(pm.type);
      }
    }
    if (tx) this.previousTx = { nr: tx.fn, signature: text(tx.fis, 'Signature') ?? '' };
    if (z) {
      this.tally.closeWindow();
      this.empPayments?.clear();
    }
  }

  endScan(): SaftScan {
    this.ident = this.signed.CompanyIdent?.value ?? this.p.companyIdent(text(this.cmp0, 'TaxId'));
    this.registerId = this.signed.RegisterID?.value ?? this.input.registerId;
    return { registerId: this.registerId, ...(this.previous ? { previous: this.previous } : {}), transactions: this.txCount, events: this.eventCount };
  }

  head(): void {
    const { o, p, input, cmp0, loc, companyName, ident, registerId } = this;
    const created = input.created;
    const startDate = input.period.from?.slice(0, 10) ?? this.first?.date ?? isoDate(created);
    const endDate = input.period.till?.slice(0, 10) ?? this.last?.date ?? isoDate(created);
    if (p.required) {
      if (this.articles.size === 0) this.articles.set('MISC', { desc: 'Diverse', group: OTHER_ART_GROUP, date: startDate });
      if (this.employees.size === 0) this.addEmployee(p.required.posEmployee, { date: startDate, time: '00:00:00' });
    }

    o.raw('<?xml version="1.0" encoding="UTF-8"?>');
    o.raw(`<auditfile xmlns="${escapeAttr(input.namespace ?? p.namespace)}">`);
    o.open('header');
    o.leaf('fiscalYear', startDate.slice(0, 4));
    o.leaf('startDate', startDate);
    o.leaf('endDate', endDate);
    o.leaf('curCode', input.currency ?? p.currency);
    o.leaf('dateCreated', isoDate(created));
    o.leaf('timeCreated', `${pad(created.getHours())}:${pad(created.getMinutes())}:${pad(created.getSeconds())}`);
    o.leaf('softwareDesc', this.fill(input.software.name), 100);
    o.leaf('softwareVersion', this.fill(input.software.version), 20);
    o.leaf('softwareCompanyName', this.fill(input.software.company), 100);
    o.leaf('auditfileVersion', p.auditfileVersion);
    o.leaf('headerComment', `Cash register ${registerId}`, 999);
    o.close('header');

    o.open('company');
    o.leaf('companyIdent', this.fill(ident), p.idMax);
    o.leaf('companyName', companyName, 100);
    o.leaf('taxRegistrationCountry', p.country);
    o.leaf('taxRegIdent', p.taxRegIdent(ident), 50);
    p.address(o, cmp0, cmp0);

    o.open('vatCodeDetails');
    for (const rate of [...this.rates.values()].sort(cmp)) {
      const v = p.vatCode(rate);
      o.open('vatCodeDetail');
      o.leaf('vatCode', v.code);
      o.leaf('dateOfEntry', startDate);
      o.leaf('vatDesc', v.desc);
      o.leaf('standardVatCode', v.standard);
      o.close('vatCodeDetail');
    }
    o.close('vatCodeDetails');

    if (p.required) {
      const periodTime = (t: string | undefined, fallback: string): string => (t && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(t) ? t.slice(11, 19) : fallback);
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
    }

    if (this.employees.size) {
      o.open('employees');
      for (const [id, e] of this.employees) {
        const names = p.employeeNames(id, e.name);
        o.open('employee');
        o.leaf('empID', id, p.idMax);
        o.leaf('dateOfEntry', e.date);
        o.leaf('timeOfEntry', e.time);
        o.leaf('firstName', names.firstName, 50);
        o.leaf('surName', names.surName, 100);
        o.close('employee');
      }
      o.close('employees');
    }

    if (p.required) {
      o.open('articles');
      for (const [id, a] of this.articles) {
        o.open('article');
        o.leaf('artID', id, 36);
        o.leaf('dateOfEntry', a.date);
        o.leaf('artGroupID', a.group, 36);
        o.leaf('artDesc', a.desc, 999);
        o.close('article');
      }
      o.close('articles');
    }

    const basics = [...this.usedBasics].map((id) => BASICS[id]).filter((x) => x !== undefined);
    if (p.required || basics.length || this.artGroups.size) {
      o.open('basics');
      for (const [id, desc] of this.artGroups) {
        o.open('basic');
        o.leaf('basicType', '04');
        o.leaf('basicID', id, p.idMax);
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
    p.address(o, loc, cmp0);
    o.open('cashregister');
    o.leaf('registerID', registerId, 100);
  }

  event(r: Obj, i: number): void {
    if (!inPeriod(r, this.input.period) || r._ === 'Cfg') return;
    const { p } = this;
    const tx = cashTxOf(r);
    const type = eventTypeOf(r, tx);
    if (!type) return;
    const when = whenOf(r);
    const emp = operatorOf(r) ?? p.required?.posEmployee;
    const sq = text(r, 'SQ') ?? String(i + 1);
    const base = { id: sq, type, ...(emp ? { empId: emp } : {}), ...when };
    if (tx) {
      const txEmp = p.txEmployee(tx);
      writeEvent(this.o, p, {
        ...base, transId: (p.signedFields ? text(tx.fis, 'TransID') : undefined) ?? sq, ...(txEmp ? { empId: txEmp } : {}),
        date: text(tx.fis, 'TransDate') ?? when.date, time: text(tx.fis, 'TransTime') ?? when.time,
      });
    } else if (type === 'COPYREC') {
      const rfn = text(obj(r, 'Fis'), 'RFN') ?? '';
      const orig = this.sqByFn.get(rfn);
      writeEvent(this.o, p, { ...base, ...(orig ? { transId: orig } : {}), text: p.copyText ? p.copyText(obj(r, 'Fis') ?? {}, rfn) : `${p.texts.copy} ${rfn}` });
    } else if (type === 'ZREP' || type === 'XREP') {
      const rep = this.reports.get(i);
      writeEvent(this.o, p, {
        ...base, text: type === 'ZREP' ? p.texts.zReport : p.texts.xReport,
        ...(rep ? { report: { ...rep.report, companyIdent: this.ident, registerId: this.registerId }, ...(rep.empPayments ? { empPayments: rep.empPayments } : {}) } : {}),
      });
    } else if (type === 'EMPIN' || type === 'EMPOUT') {
      writeEvent(this.o, p, base);
    } else if (r._ === 'Tra') {
      writeEvent(this.o, p, { ...base, text: `${text(r, 'BC') ?? 'event'}${text(r, 'BCF') ? ` (${text(r, 'BCF')})` : ''}` });
    } else if (r._ === 'Audit') {
      const audit = obj(r, 'Audit') ?? {};
      const at = text(audit, 'Type') ?? '';
      const t = [AUDIT_EVENTS[at] ? undefined : at, text(audit, 'Txt')].filter(Boolean).join(': ');
      writeEvent(this.o, p, { ...base, ...(t ? { text: t } : {}) });
    } else {
      const ev = (text(r, 'Event') ?? '').toLowerCase();
      writeEvent(this.o, p, { ...base, ...(ev === 'start' || ev === 'stop' ? {} : { text: ev || 'log' }) });
    }
  }

  transaction(r: Obj): void {
    if (!inPeriod(r, this.input.period) || r._ === 'Cfg') return;
    const tx = cashTxOf(r);
    if (tx) writeTransaction(this.t, this.p, tx, this.copies.get(tx.fn) ?? 0, this.p.required ? this.certificate(tx) : undefined);
  }

  tail(): void {
    const o = this.o;
    o.close('cashregister');
    o.close('location');
    o.close('company');
    o.raw('</auditfile>');
  }
}

/** The event a record is (undefined: none, e.g. Cfg or an unknown record type). */
function eventTypeOf(r: Obj, tx: CashTx | undefined): string | undefined {
  if (tx) return receiptEventType(tx);
  if (r._ === 'Tra') {
    const bc = (text(r, 'BC') ?? '').toLowerCase();
    if (bc === 'login') return 'EMPIN';
    if (bc === 'logout') return 'EMPOUT';
    if (bc === 'reprint') return 'COPYREC';
    if (isZ(r)) return 'ZREP';
    if (isX(r)) return 'XREP';
    return 'OTHEREVT';
  }
  if (r._ === 'Audit') return AUDIT_EVENTS[text(obj(r, 'Audit'), 'Type') ?? ''] ?? 'OTHEREVT';
  if (r._ === 'log') {
    const ev = (text(r, 'Event') ?? '').toLowerCase();
    return ev === 'start' ? 'POSSTART' : ev === 'stop' ? 'POSEND' : 'OTHEREVT';
  }
  return undefined;
}

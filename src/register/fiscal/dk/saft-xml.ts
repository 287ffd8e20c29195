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
import { type PassWriter, type RecordSource, type SaftScan, XmlOut, runPasses, runPassesSync } from '../no/saft-xml.js';
import {
  BASICS, type CashTx, OTHER_ART_GROUP, type Report, ReportTally, amount, artGroupsOf, cashTxOf, isModLine, isPosLine,
  isX, isZ, lineTypeOf, lineVat, money2, paymentTypeOf, qtyOf, text, vatTaxA,
} from '../no/saft-report.js';

export const SAFT_DK_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:DK';
export const SAFT_DK_SCHEMA = 'Danish_SAF-T_Cash_Register_Schema_v_1.0.3.xsd';
/** The employee of events and transactions without an operator. */
export const POS_EMPLOYEE = 'POS';

export interface DanishSaftOptions {
  /** the Cfg (or a record `{ Cfg }`): Cmp {Nam, TaxId, Adr, AdrNr, Zip, City, Ctry}, Loc {TL, Nam, Adr, AdrNr, Zip, City, Ctry}, Trm {TT} */
  cfg: Obj;
  registerId: string;
  /** YYYY-MM-DD or a YYYY-MM-DDThh:mm:ss prefix, compared with each record's TS; both inclusive */
  period: { from?: string; till?: string };
  created: Date;
  software: { name: string; version: string; company: string };
  /** the signing certificates as PEM, by serial number (uppercase hex, as Fis.CertSerial), or a look-up by serial */
  certificates: Record<string, string> | ((serial: string) => string | undefined);
  currency?: 'DKK';
}

export interface DanishSaftInput extends DanishSaftOptions {
  /** journal record data of ONE register in SQ order, from its first record (older records feed the report grand totals) */
  records: readonly Obj[];
}

export interface DanishSaftStreamInput extends DanishSaftOptions {
  /** the same records, read again from the start on each call (see runPasses in no/saft-xml.ts) */
  records: RecordSource;
  /** called after the first read, before any text is handed over */
  onScanned?: (scan: SaftScan) => void;
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

function inPeriod(r: Obj, p: DanishSaftOptions['period']): boolean {
  const ts = stampOf(r);
  if (ts === undefined) return true;
  if (p.from && ts.slice(0, p.from.length) < p.from) return false;
  if (p.till && ts.slice(0, p.till.length) > p.till) return false;
  return true;
}

function afterPeriod(r: Obj, p: DanishSaftOptions['period']): boolean {
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
  empPayments?: EmpPayment[];
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

type EmpPayment = { emp: string; type: string; num: number; amnt: Dec };

/** Per employee and payment type: the payments of the report window (as the report counts them), kept while walking. */
class EmpPayments {
  private m = new Map<string, EmpPayment>();
  add(tx: CashTx): void {
    if (tx.training || tx.payin || tx.payout) return;
    const emp = txEmp(tx);
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
    return list.length ? list : [{ emp: POS_EMPLOYEE, type: 'CASH', num: 0, amnt: ZERO }];
  }
  clear(): void {
    this.m = new Map();
  }
}

/** The Danish SAF-T Cash Register XML of one register for a period, as text chunks (records read twice, see runPasses). */
export function danishSaftXmlChunks(input: DanishSaftStreamInput): AsyncGenerator<string> {
  return runPasses(new DkWriter(input), input.records, input.onScanned);
}

/** The Danish SAF-T Cash Register XML of one register for a period (all records in memory; see danishSaftXmlChunks). */
export function danishSaftXml(input: DanishSaftInput): string {
  return runPassesSync(new DkWriter(input), input.records);
}

class DkWriter implements PassWriter {
  private readonly o = new XmlOut();
  /** the cashtransactions, at their depth in cashregister */
  private readonly t = new XmlOut(3);
  private readonly cmp0: Obj;
  private readonly loc: Obj;
  private readonly companyName: string;
  private readonly certificateOf: (serial: string) => string | undefined;
  // first pass
  private readonly sqByFn = new Map<string, string>();
  private readonly totals = new Map<string, Dec>();
  private readonly copies = new Map<string, number>();
  private readonly tally = new ReportTally(this.totals);
  private readonly empPayments = new EmpPayments();
  private readonly reports = new Map<number, { report: Report; empPayments: EmpPayment[] }>();
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
  private cvr = '';
  private registerId = '';
  lastIndex = -1;

  constructor(private readonly input: DanishSaftOptions) {
    const cfg = obj(input.cfg, 'Cfg') ?? input.cfg;
    this.cmp0 = obj(cfg, 'Cmp') ?? {};
    this.loc = obj(cfg, 'Loc') ?? {};
    this.companyName = text(this.cmp0, 'Nam') || '-';
    const certs = input.certificates;
    this.certificateOf = typeof certs === 'function' ? certs : (serial) => certs[serial.toUpperCase()] ?? certs[serial];
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
    else if (!known.name && name) known.name = name;
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

  scan(r: Obj, i: number): void {
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
    if (tx) this.empPayments.add(tx);
    const z = isZ(r);
    if (z) this.zCount += 1;
    if (inPeriod(r, this.input.period) && r._ !== 'Cfg') {
      this.lastIndex = i;
      const when = whenOf(r);
      this.first ??= when;
      this.last = when;
      const emp = operatorOf(r) ?? POS_EMPLOYEE;
      this.addEmployee(emp, when, r._ === 'Tra' ? text(obj(r, 'ESR'), 'OprN') : undefined);
      if (tx) {
        this.signedValue(tx, 'CompanyIdent');
        this.signedValue(tx, 'RegisterID');
        const serial = text(tx.fis, 'CertSerial') ?? '';
        if (!this.certificateOf(serial)) throw new Error(`no certificate with serial "${serial.toUpperCase()}" for cash transaction nr ${tx.fn} (SQ ${tx.sq})`);
        if (this.firstExported && tx.fn !== '1' && this.previousTx) this.previous = this.previousTx;
        this.firstExported = false;
        this.txCount += 1;
        this.addEmployee(txEmp(tx), when, text(tx.esr, 'OprN'));
        this.usedBasics.add(text(tx.fis, 'TransType') ?? 'OTHERTRANS');
        const posA = lines(tx.esr, 'PosA').filter((l) => isPosLine(l) || isModLine(l));
        const groups = artGroupsOf(posA);
        posA.forEach((line, k) => {
          const group = groups[k] as string;
          const fallback = group === OTHER_ART_GROUP ? 'Other' : text(line, 'Cat') || group;
          if (isPosLine(line) && (!this.artGroups.has(group) || this.artGroups.get(group) === group)) this.artGroups.set(group, text(line, 'CatN') || fallback);
          else if (!this.artGroups.has(group)) this.artGroups.set(group, fallback);
          const id = articleIdOf(line);
          if (!this.articles.has(id)) this.articles.set(id, { desc: text(line, 'Dsc') || id, group, date: text(tx.fis, 'TransDate') ?? when.date });
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
        // companyIdent and registerID: set when written (the signed values of the whole period)
        const report = this.tally.report({
          kind: z ? 'Z report' : 'X report', reportId: z ? String(this.zCount) : `X${sq}`, company: { ident: '', name: this.companyName },
          registerId: '', date: when.date, time: when.time,
        });
        const empPayments = this.empPayments.list();
        this.reports.set(i, { report, empPayments });
        for (const p of report.payments) this.usedBasics.add(p.id);
        for (const g of report.artGroups) if (!this.artGroups.has(g.id)) this.artGroups.set(g.id, g.id === OTHER_ART_GROUP ? 'Other' : g.id);
        for (const p of empPayments) this.usedBasics.add(p.type);
      }
    }
    if (tx) this.previousTx = { nr: tx.fn, signature: text(tx.fis, 'Signature') ?? '' };
    if (z) {
      this.tally.closeWindow();
      this.empPayments.clear();
    }
  }

  endScan(): DanishScan {
    this.cvr = this.signed.CompanyIdent?.value ?? cvrNumber(text(this.cmp0, 'TaxId'));
    this.registerId = this.signed.RegisterID?.value ?? this.input.registerId;
    return { registerId: this.registerId, ...(this.previous ? { previous: this.previous } : {}), transactions: this.txCount, events: this.eventCount };
  }

  head(): void {
    const { o, input, cmp0, loc, companyName, cvr, registerId } = this;
    for (const r of ['0', '25']) this.rates.set(fmt(rescale(dec(r), 3)), dec(r));
    const created = input.created;
    const startDate = input.period.from?.slice(0, 10) ?? this.first?.date ?? isoDate(created);
    const endDate = input.period.till?.slice(0, 10) ?? this.last?.date ?? isoDate(created);
    const periodTime = (p: string | undefined, fallback: string): string => (p && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(p) ? p.slice(11, 19) : fallback);
    if (this.articles.size === 0) this.articles.set('MISC', { desc: 'Diverse', group: OTHER_ART_GROUP, date: startDate });
    if (this.employees.size === 0) this.addEmployee(POS_EMPLOYEE, { date: startDate, time: '00:00:00' });

    o.raw('<?xml version="1.0" encoding="UTF-8"?>');
    o.raw(`<auditfile xmlns="${SAFT_DK_NAMESPACE}">`);
    o.open('header');
    o.leaf('fiscalYear', startDate.slice(0, 4));
    o.leaf('startDate', startDate);
    o.leaf('endDate', endDate);
    o.leaf('curCode', input.currency ?? 'DKK');
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
    for (const rate of [...this.rates.values()].sort(cmp)) {
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
    for (const [id, e] of this.employees) {
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
    for (const [id, a] of this.articles) {
      o.open('article');
      o.leaf('artID', id, 36);
      o.leaf('dateOfEntry', a.date);
      o.leaf('artGroupID', a.group, 36);
      o.leaf('artDesc', a.desc, 999);
      o.close('article');
    }
    o.close('articles');

    o.open('basics');
    for (const [id, desc] of this.artGroups) {
      o.open('basic');
      o.leaf('basicType', '04');
      o.leaf('basicID', id, 36);
      o.leaf('predefinedBasicID', /^04\d{3}$/.test(id) ? id : OTHER_ART_GROUP);
      o.leaf('basicDesc', desc, 999);
      o.close('basic');
    }
    const basics = [...this.usedBasics].map((id) => BASICS[id]).filter((b) => b !== undefined);
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
  }

  event(r: Obj, i: number): void {
    if (!inPeriod(r, this.input.period) || r._ === 'Cfg') return;
    const tx = cashTxOf(r);
    const type = eventTypeOf(r, tx);
    if (!type) return;
    const when = whenOf(r);
    const emp = operatorOf(r) ?? POS_EMPLOYEE;
    const sq = text(r, 'SQ') ?? String(i + 1);
    const base = { id: sq, type, empId: emp, ...when };
    if (tx) {
      writeEvent(this.o, {
        ...base, transId: text(tx.fis, 'TransID') ?? sq, empId: txEmp(tx),
        date: text(tx.fis, 'TransDate') ?? when.date, time: text(tx.fis, 'TransTime') ?? when.time,
      });
    } else if (type === 'COPYREC') {
      const rfn = text(obj(r, 'Fis'), 'RFN') ?? '';
      const orig = this.sqByFn.get(rfn);
      writeEvent(this.o, { ...base, ...(orig ? { transId: orig } : {}), text: `Kopi af kvittering nr ${rfn}` });
    } else if (type === 'ZREP' || type === 'XREP') {
      const rep = this.reports.get(i);
      writeEvent(this.o, {
        ...base, text: type === 'ZREP' ? 'Z-rapport' : 'X-rapport',
        ...(rep ? { report: { ...rep.report, companyIdent: this.cvr, registerId: this.registerId }, empPayments: rep.empPayments } : {}),
      });
    } else if (type === 'EMPIN' || type === 'EMPOUT') {
      writeEvent(this.o, base);
    } else if (r._ === 'Tra') {
      writeEvent(this.o, { ...base, text: `${text(r, 'BC') ?? 'event'}${text(r, 'BCF') ? ` (${text(r, 'BCF')})` : ''}` });
    } else if (r._ === 'Audit') {
      const audit = obj(r, 'Audit') ?? {};
      const at = text(audit, 'Type') ?? '';
      const t = [AUDIT_EVENTS[at] ? undefined : at, text(audit, 'Txt')].filter(Boolean).join(': ');
      writeEvent(this.o, { ...base, ...(t ? { text: t } : {}) });
    } else {
      const ev = (text(r, 'Event') ?? '').toLowerCase();
      writeEvent(this.o, { ...base, ...(ev === 'start' || ev === 'stop' ? {} : { text: ev || 'log' }) });
    }
  }

  transaction(r: Obj): void {
    if (!inPeriod(r, this.input.period) || r._ === 'Cfg') return;
    const tx = cashTxOf(r);
    if (tx) writeTransaction(this.t, tx, this.copies.get(tx.fn) ?? 0, this.certificateOf);
  }

  tail(): void {
    const o = this.o;
    o.close('cashregister');
    o.close('location');
    o.close('company');
    o.raw('</auditfile>');
  }
}

type DanishScan = SaftScan;

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

function isoDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** streetAddress (required in DK, all five parts): from `a`, then `fallback` (the company), else '-'. */
function address(o: XmlOut, a: Obj, fallback: Obj): void {
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

function writeEvent(o: XmlOut, e: EventOut): void {
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

function counted(o: XmlOut, list: string, item: string, names: [string, string, string], entries: Report['artGroups']): void {
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

function writeReport(o: XmlOut, r: Report, empPayments: NonNullable<EventOut['empPayments']>): void {
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

function vatBlock(o: XmlOut, rate: Dec, vat: Dec, base: Dec): void {
  o.open('vat');
  o.leaf('vatCode', danishVatCode(rate).code);
  o.leaf('vatPerc', percent(rate));
  o.leaf('vatAmnt', money2(vat));
  o.leaf('vatAmntTp', tp(base));
  o.leaf('vatBasAmnt', money2(base));
  o.close('vat');
}

function writeTransaction(o: XmlOut, tx: CashTx, copyCount: number, certificateOf: (serial: string) => string | undefined): void {
  const fis = tx.fis;
  const esr = tx.esr;
  const emp = txEmp(tx);
  const serial = (text(fis, 'CertSerial') ?? '').toUpperCase();
  const pem = certificateOf(text(fis, 'CertSerial') ?? '');
  if (!pem) throw new Error(`no certificate with serial "${serial}" for cash transaction nr ${tx.fn} (SQ ${tx.sq})`);
  // the signed values, verbatim: the validator rebuilds the signed string from these texts
  const amntInText = text(fis, 'AmntIn') ?? money2(tx.total);
  const amntIn = amount(amntInText);
  const taxA = vatTaxA(esr);
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
    o.leaf('lineType', lineTypeOf(line));
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

/**
 * Norway: the SAF-T Cash Register file (Skatteetaten, Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd)
 * of one register, built from its journal records (a pure function: records in, XML text out).
 * Per record in the period: events (login/logout, copy, X/Z report with eventReport, Audit, POS start/stop)
 * and, per signed cash transaction, its receipt event; then the cashtransactions with lines, VAT,
 * payments and the chained signature as journaled. Codes and report figures: saft-report.ts.
 * The writer (SaftWriter) is every country's: what differs is a SaftProfile (Norway's NO_PROFILE here,
 * Denmark's DK_PROFILE in dk/saft-xml.ts).
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Dec, ZERO, add, cmp, fmt, parseDec, rescale, sign, significantScale, sub } from '../../../shared/money.js';
import { type Obj, lines, obj } from '../../codec/index.js';
import { escapeAttr, escapeText } from '../../codec/xml-text.js';
import { cashTransType } from './cash-transaction.js';
import {
  BASICS, type CashTx, OTHER_ART_GROUP, REPORT_RATES, type Report, ReportTally, amount, artGroupsOf, cashTxOf, isModLine, isPosLine,
  isX, isZ, lineTypeOf, lineVat, money2, paymentTypeOf, qtyOf, text, vatCodeOf, vatTaxA,
} from './saft-report.js';

export const SAFT_NO_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:NO';
export const SAFT_NO_SCHEMA = 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd';

export interface SaftOptions {
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

export interface SaftInput extends SaftOptions {
  /** journal record data of ONE register in SQ order, from its first record (older records feed the report grand totals) */
  records: readonly Obj[];
}

export interface SaftStreamInput extends SaftOptions {
  /** the same records, read again from the start on each call (two reads: see runPasses) */
  records: RecordSource;
  /** called after the first read, before any text is handed over */
  onScanned?: (scan: SaftScan) => void;
}

/** XML text written line by line, tab-indented; `take` hands over what was written so far. */
export class XmlOut {
  private out: string[] = [];
  private chars = 0;
  constructor(private depth = 0) {}
  private push(line: string): void {
    this.out.push(line);
    this.chars += line.length + 1;
  }
  open(name: string): void {
    this.push(`${'\t'.repeat(this.depth)}<${name}>`);
    this.depth += 1;
  }
  close(name: string): void {
    this.depth -= 1;
    this.push(`${'\t'.repeat(this.depth)}</${name}>`);
  }
  leaf(name: string, value: string | number | undefined, max?: number): void {
    if (value === undefined) return;
    let v = String(value);
    if (max !== undefined && v.length > max) v = [...v].slice(0, max).join('');
    this.push(`${'\t'.repeat(this.depth)}<${name}>${escapeText(v)}</${name}>`);
  }
  raw(line: string): void {
    this.push(line);
  }
  /** characters written and not yet taken */
  get size(): number {
    return this.chars;
  }
  take(): string {
    if (this.out.length === 0) return '';
    const s = `${this.out.join('\n')}\n`;
    this.out = [];
    this.chars = 0;
    return s;
  }
}

export const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `yyyymmddhhmmss` of `created` (local time), as the file names carry it. */
export function fileStamp(c: Date): string {
  return `${c.getFullYear()}${pad(c.getMonth() + 1)}${pad(c.getDate())}${pad(c.getHours())}${pad(c.getMinutes())}${pad(c.getSeconds())}`;
}

/** The organisation number: digits only ('NO 999 999 999 MVA' -> '999999999'). */
export function orgNumber(taxId: string | undefined): string {
  return (taxId ?? '').replace(/^\s*NO/i, '').replace(/MVA\s*$/i, '').replace(/\D/g, '');
}

/** `SAF-T Cash Register_<orgnr>_<yyyymmddhhmmss>.xml` (local time of `created`). */
export function saftFileName(orgnr: string, created: Date): string {
  return `SAF-T Cash Register_${orgNumber(orgnr)}_${fileStamp(created)}.xml`;
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

export function tp(d: Dec): 'C' | 'D' {
  return sign(d) < 0 ? 'D' : 'C';
}

export function percent(rate: Dec): string {
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

function transTypeOf(tx: CashTx): string {
  return cashTransType(tx.payin ? 'payin' : tx.payout ? 'payout' : tx.bc, tx.training, tx.total);
}

/** The operator of a record, else undefined. */
function operatorOf(r: Obj): string | undefined {
  if (r._ === 'Audit') return text(obj(r, 'Audit'), 'Opr') || undefined;
  if (r._ === 'Tra') return text(obj(r, 'ESR'), 'Opr') || undefined;
  return undefined;
}

/** What the first pass learned that the export needs besides the XML (e.g. for previous-signature.txt). */
export interface SaftScan {
  /** the cashregister's registerID in the file */
  registerId: string;
  /** the signed cash transaction before the first exported one, when that one is not nr 1 */
  previous?: { nr: string; signature: string };
  /** number of cashtransactions and events written */
  transactions: number;
  events: number;
}

/**
 * A SAF-T writer in passes over the same records (each pass from the register's first record, in SQ order):
 * `scan` every record (codes, employees, rates, period bounds and the X/Z report figures, kept as it goes),
 * `endScan`, then `head` (header, company, basics ... up to registerID), `event` and `transaction` for every
 * record, `tail`. The events go to the main text (`take`), the cashtransactions to their own (`takeTransactions`):
 * the schema wants every event before the first cashtransaction.
 */
export interface PassWriter {
  scan(r: Obj, i: number): void;
  endScan(): SaftScan;
  /** the index of the last record in the period (the writing pass stops after it) */
  readonly lastIndex: number;
  head(): void;
  event(r: Obj, i: number): void;
  transaction(r: Obj, i: number): void;
  tail(): void;
  readonly size: number;
  take(): string;
  readonly transactionsSize: number;
  takeTransactions(): string;
}

/** Records given as a function that reads them again from the start on each call. */
export type RecordSource = () => AsyncIterable<Obj> | Iterable<Obj>;

/** Every how many records a pass yields to the event loop. */
const YIELD_EVERY = 500;
/** The text size at which a chunk is handed over. */
const CHUNK = 1 << 16;

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs a PassWriter over a record source in two reads of the records: the first scans, the second writes the
 * events (handed over as they come) and the cashtransactions (spilled to a temporary file, handed over after
 * the events, as the schema orders them; the file is removed at the end). Yields to the event loop every 500
 * records and hands over text chunks of about 64 KiB; nothing but the codes, the report figures and an FN
 * index is kept in memory.
 */
export async function* runPasses(w: PassWriter, records: RecordSource, onScanned?: (scan: SaftScan) => void): AsyncGenerator<string> {
  let i = 0;
  for await (const r of records()) {
    w.scan(r, i);
    i += 1;
    if (i % YIELD_EVERY === 0) await tick();
  }
  const scan = w.endScan();
  onScanned?.(scan);
  w.head();
  yield w.take();
  const dir = await mkdtemp(join(tmpdir(), 'efr-saft-'));
  const file = join(dir, 'cashtransactions.xml');
  const spill = createWriteStream(file, { encoding: 'utf8' });
  try {
    const write = async (text: string): Promise<void> => {
      if (!spill.write(text)) await once(spill, 'drain');
    };
    i = 0;
    for await (const r of records()) {
      if (i > w.lastIndex) break;
      w.event(r, i);
      w.transaction(r, i);
      i += 1;
      if (w.size >= CHUNK) yield w.take();
      if (w.transactionsSize >= CHUNK) await write(w.takeTransactions());
      if (i % YIELD_EVERY === 0) await tick();
    }
    yield w.take();
    await write(w.takeTransactions());
    await new Promise<void>((resolve, reject) => {
      spill.once('error', reject);
      spill.end(resolve);
    });
    for await (const text of createReadStream(file, { encoding: 'utf8', highWaterMark: CHUNK })) yield text as string;
  } finally {
    spill.destroy();
    await rm(dir, { recursive: true, force: true });
  }
  w.tail();
  yield w.take();
}

/** The same passes over an array, synchronously (the unit tests' string-returning writers). */
export function runPassesSync(w: PassWriter, records: readonly Obj[]): string {
  records.forEach((r, i) => w.scan(r, i));
  w.endScan();
  w.head();
  records.forEach((r, i) => {
    w.event(r, i);
    w.transaction(r, i);
  });
  const head = w.take();
  const transactions = w.takeTransactions();
  w.tail();
  return head + transactions + w.take();
}

/** A VAT rate's code in the file, its standard VAT code and description. */
export interface SaftVatCode {
  code: string;
  standard: string;
  desc: string;
}

/**
 * What differs between the countries' SAF-T Cash Register files; the writer below is the same for all.
 * Norway's is NO_PROFILE here; Denmark's (dk/saft-xml.ts) adds `required` and writes the signed fields.
 */
export interface SaftProfile {
  namespace: string;
  currency: string;
  auditfileVersion: string;
  /** taxRegistrationCountry */
  country: string;
  /** the longest ID the schema allows (eventID, transID, empID, reportID, basicID ...) */
  idMax: number;
  /** the value written where the schema wants one and there is none (undefined: the empty text) */
  blank?: string;
  texts: { copy: string; zReport: string; xReport: string };
  vatCode(rate: Dec): SaftVatCode;
  /** the vatCode of a report's VAT line, undefined to leave the line out */
  reportVatCode(v: Report['vat'][number]): string | undefined;
  /** the rates every file declares */
  baseRates: readonly Dec[];
  /** companyIdent from Cfg.Cmp.TaxId */
  companyIdent(taxId: string | undefined): string;
  taxRegIdent(ident: string): string | undefined;
  /** the streetAddress of `a` (the company or the location), `company` the company's */
  address(o: XmlOut, a: Obj, company: Obj): void;
  /** the empID of a cash transaction */
  txEmployee(tx: CashTx): string | undefined;
  employeeNames(id: string, name: string | undefined): { firstName?: string; surName: string };
  /** the description of a line's article group (undefined: the line names none) */
  artGroupDesc(line: Obj, group: string): string | undefined;
  /** a Z report's reportID is Fis.Z.ZI when the record has one */
  zNumberFromFis: boolean;
  /** reportCreditSales and reportCreditMemos in the reports */
  creditBlocks: boolean;
  /**
   * the cashtransaction's nr, transID, transType, amounts and empID are the signed Fis values verbatim, and
   * companyIdent and registerID the signed Fis.CompanyIdent and Fis.RegisterID of the period
   */
  signedFields: boolean;
  /** the elements a country requires on top (Denmark): periods, articles, employees, basics always, reportEmpPayments, certificateData */
  required?: {
    /** the employee of events and transactions without an operator */
    posEmployee: string;
    articleId(line: Obj): string;
  };
}

export const NO_PROFILE: SaftProfile = {
  namespace: SAFT_NO_NAMESPACE,
  currency: 'NOK',
  auditfileVersion: '1.0',
  country: 'NO',
  idMax: 35,
  texts: { copy: 'Copy of receipt nr', zReport: 'Z-report', xReport: 'X-report' },
  vatCode: vatCodeOf,
  reportVatCode: (v) => v.code,
  baseRates: REPORT_RATES,
  companyIdent: orgNumber,
  taxRegIdent: (orgnr) => `${orgnr}MVA`,
  address: (o, a) => norwegianAddress(o, a),
  txEmployee: (tx) => text(tx.esr, 'Opr') || undefined,
  employeeNames: (id, name) => ({ surName: name || id }),
  artGroupDesc: (line) => (isPosLine(line) ? text(line, 'CatN') || text(line, 'Cat') || 'Other' : undefined),
  zNumberFromFis: true,
  creditBlocks: true,
  signedFields: false,
};

/** The options of the shared writer: a country's options, and the certificates where the profile writes certificateData. */
export interface SaftWriterOptions extends SaftOptions {
  /** the signing certificates as PEM, by serial number (uppercase hex, as Fis.CertSerial), or a look-up by serial */
  certificates?: Record<string, string> | ((serial: string) => string | undefined);
}

/** The SAF-T Cash Register XML of one register for a period, as text chunks (records read twice, see runPasses). */
export function saftCashRegisterXmlChunks(input: SaftStreamInput): AsyncGenerator<string> {
  return runPasses(new SaftWriter(NO_PROFILE, input), input.records, input.onScanned);
}

/** The SAF-T Cash Register XML of one register for a period (all records in memory; see saftCashRegisterXmlChunks). */
export function saftCashRegisterXml(input: SaftInput): string {
  return runPassesSync(new SaftWriter(NO_PROFILE, input), input.records);
}

export type EmpPayment = { emp: string; type: string; num: number; amnt: Dec };

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
  private readonly tally = new ReportTally(this.totals);
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
        const posA = lines(tx.esr, 'PosA').filter((l) => isPosLine(l) || isModLine(l));
        const groups = artGroupsOf(posA);
        posA.forEach((line, k) => {
          const group = groups[k] as string;
          const desc = p.artGroupDesc(line, group);
          if (desc !== undefined && (isPosLine(line) ? !this.artGroups.has(group) || this.artGroups.get(group) === group : !this.artGroups.has(group))) {
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
      writeEvent(this.o, p, { ...base, ...(orig ? { transId: orig } : {}), text: `${p.texts.copy} ${rfn}` });
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

function isoDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Norway's streetAddress: streetname, city, postalCode, country NO; none when Cfg has no address. */
function norwegianAddress(o: XmlOut, a: Obj): void {
  const street = text(a, 'Adr');
  const city = text(a, 'City');
  const zip = text(a, 'Zip');
  if (!street && !city && !zip) return;
  o.open('streetAddress');
  o.leaf('streetname', street, 100);
  o.leaf('city', city, 50);
  o.leaf('postalCode', zip, 20);
  o.leaf('country', 'NO');
  o.close('streetAddress');
}

function writeEvent(o: XmlOut, p: SaftProfile, e: EventOut): void {
  o.open('event');
  o.leaf('eventID', e.id, p.idMax);
  o.leaf('eventType', e.type);
  o.leaf('transID', e.transId, p.idMax);
  o.leaf('empID', e.empId, p.idMax);
  o.leaf('eventDate', e.date);
  o.leaf('eventTime', e.time);
  o.leaf('eventText', e.text, 9999);
  if (e.report) writeReport(o, p, e.report, e.empPayments);
  o.close('event');
}

function counted(o: XmlOut, p: SaftProfile, list: string, item: string, names: [string, string, string], entries: Report['artGroups']): void {
  o.open(list);
  for (const c of entries) {
    o.open(item);
    o.leaf(names[0], c.id, p.idMax);
    o.leaf(names[1], c.num);
    o.leaf(names[2], c.amnt);
    o.close(item);
  }
  o.close(list);
}

function writeReport(o: XmlOut, p: SaftProfile, r: Report, empPayments: EmpPayment[] | undefined): void {
  o.open('eventReport');
  o.leaf('reportID', r.reportId, p.idMax);
  o.leaf('reportType', r.kind);
  o.leaf('companyIdent', p.blank !== undefined ? r.companyIdent || p.blank : r.companyIdent, p.idMax);
  o.leaf('companyName', r.companyName, 100);
  o.leaf('reportDate', r.date);
  o.leaf('reportTime', r.time);
  o.leaf('registerID', r.registerId, 100);
  o.open('reportTotalCashSales');
  o.leaf('totalCashSaleAmnt', r.totalCashSale);
  o.close('reportTotalCashSales');
  counted(o, p, 'reportArtGroups', 'reportArtGroup', ['artGroupID', 'artGroupNum', 'artGroupAmnt'], r.artGroups);
  counted(o, p, 'reportPayments', 'reportPayment', ['paymentType', 'paymentNum', 'paymentAmnt'], r.payments);
  if (p.required) {
    o.open('reportEmpPayments');
    for (const e of empPayments ?? []) {
      o.open('reportEmpPayment');
      o.leaf('empID', e.emp, p.idMax);
      o.leaf('paymentType', e.type, p.idMax);
      o.leaf('paymentNum', e.num);
      o.leaf('paymentAmnt', money2(e.amnt));
      o.close('reportEmpPayment');
    }
    o.close('reportEmpPayments');
  }
  o.open('reportCashSalesVat');
  for (const v of r.vat) {
    const code = p.reportVatCode(v);
    if (code === undefined) continue;
    o.open('reportCashSaleVat');
    o.leaf('vatCode', code);
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
  counted(o, p, 'reportCorrLines', 'reportCorrLine', ['corrLineType', 'corrLineNum', 'corrLineAmnt'], r.corrLines);
  counted(o, p, 'reportPriceInquiries', 'reportPriceInquiry', ['priceInquiryGroup', 'priceInquiryNum', 'priceInquiryAmnt'], r.priceInquiries);
  counted(o, p, 'reportOtherCorrs', 'reportOtherCorr', ['otherCorrType', 'otherCorrNum', 'otherCorrAmnt'], r.otherCorrs);
  o.leaf('reportReceiptDeliveryNum', r.deliveryNum);
  o.leaf('reportReceiptDeliveryAmnt', r.deliveryAmnt);
  o.leaf('reportTrainingNum', r.trainingNum);
  o.leaf('reportTrainingAmnt', r.trainingAmnt);
  if (p.creditBlocks) {
    o.open('reportCreditSales');
    o.leaf('creditSalesNum', 0);
    o.leaf('creditSalesAmnt', '0.00');
    o.close('reportCreditSales');
    o.open('reportCreditMemos');
    o.leaf('creditMemosNum', 0);
    o.leaf('creditMemosAmnt', '0.00');
    o.close('reportCreditMemos');
  }
  counted(o, p, 'reportPayIns', 'reportPayIn', ['payInType', 'payInNum', 'payInAmnt'], r.payIns);
  counted(o, p, 'reportPayOuts', 'reportPayOut', ['payOutType', 'payOutNum', 'payOutAmnt'], r.payOuts);
  o.leaf('reportGrandTotalSales', r.grandTotalSales);
  o.leaf('reportGrandTotalReturn', r.grandTotalReturn);
  o.leaf('reportGrandTotalSalesNet', r.grandTotalNet);
  o.close('eventReport');
}

function vatBlock(o: XmlOut, p: SaftProfile, rate: Dec, vat: Dec, base: Dec): void {
  o.open('vat');
  o.leaf('vatCode', p.vatCode(rate).code);
  o.leaf('vatPerc', percent(rate));
  o.leaf('vatAmnt', money2(vat));
  o.leaf('vatAmntTp', tp(base));
  o.leaf('vatBasAmnt', money2(base));
  o.close('vat');
}

/** A cashtransaction; `pem`: its certificate, written as certificateData. */
function writeTransaction(o: XmlOut, p: SaftProfile, tx: CashTx, copyCount: number, pem: string | undefined): void {
  const fis = tx.fis;
  const esr = tx.esr;
  const emp = p.txEmployee(tx);
  const taxA = vatTaxA(esr);
  o.open('cashtransaction');
  if (p.signedFields) {
    // the signed values, verbatim: the validator rebuilds the signed string from these texts
    const amntInText = text(fis, 'AmntIn') ?? money2(tx.total);
    const amntIn = amount(amntInText);
    o.leaf('nr', tx.fn);
    o.leaf('transID', text(fis, 'TransID') ?? tx.sq);
    o.leaf('transType', text(fis, 'TransType') ?? 'OTHERTRANS');
    o.leaf('transAmntIn', amntInText);
    o.leaf('transAmntEx', text(fis, 'AmntEx') ?? money2(amntIn));
    o.leaf('amntTp', tp(amntIn));
    o.leaf('empID', emp);
  } else {
    const amntIn = amount(text(fis, 'AmntIn'));
    o.leaf('nr', tx.fn, p.idMax);
    o.leaf('transID', tx.sq, p.idMax);
    o.leaf('transType', transTypeOf(tx));
    o.leaf('transAmntIn', money2(amntIn));
    o.leaf('transAmntEx', money2(amount(text(fis, 'AmntEx'))));
    o.leaf('amntTp', tp(amntIn));
    o.leaf('empID', emp, p.idMax);
  }
  o.leaf('transDate', text(fis, 'TransDate'));
  o.leaf('transTime', text(fis, 'TransTime'));
  o.leaf('refID', text(esr, 'RFN'), 9999);
  const posA = lines(esr, 'PosA').filter((l) => (isPosLine(l) && text(l, 'Void') !== '1') || isModLine(l));
  const groups = artGroupsOf(posA);
  posA.forEach((line, i) => {
    const v = lineVat(line, taxA);
    const mod = isModLine(line);
    o.open('ctLine');
    o.leaf('nr', tx.fn, p.idMax);
    o.leaf('lineID', String(i + 1));
    o.leaf('lineType', lineTypeOf(line));
    o.leaf('artGroupID', groups[i], p.idMax);
    if (p.required) {
      o.leaf('artID', p.required.articleId(line));
      // the validator wants a quantity on every line (a discount counts as 1)
      o.leaf('qnt', mod ? '1' : decimal6(qtyOf(line)));
    } else if (!mod) o.leaf('qnt', decimal6(qtyOf(line)));
    o.leaf('lineAmntIn', money2(v.gross));
    o.leaf('lineAmntEx', money2(v.net));
    o.leaf('amntTp', tp(v.gross));
    const pri = text(line, 'Pri');
    const ppu = pri === undefined ? undefined : parseDec(pri.trim());
    if (!mod && ppu) o.leaf('ppu', decimal6(ppu));
    o.leaf('empID', emp, p.idMax);
    o.leaf('cashTransLineDescr', text(line, 'Dsc'), 9999);
    vatBlock(o, p, v.rate, v.vat, v.net);
    o.close('ctLine');
  });
  for (const t of taxA) {
    const rate = amount(text(t, 'Prc'));
    const gross = amount(text(t, 'Amt'));
    const tAmt = text(t, 'TAmt') !== undefined ? amount(text(t, 'TAmt')) : sub(gross, amount(text(t, 'Net')));
    const base = text(t, 'Net') !== undefined ? amount(text(t, 'Net')) : sub(gross, tAmt);
    vatBlock(o, p, rate, tAmt, base);
  }
  const pays = lines(esr, 'PayA');
  const rounding = pays.filter((pay) => (text(pay, 'PayG') ?? '').toLowerCase() === 'rounding').reduce((s, pay) => add(s, amount(text(pay, 'Amt'))), ZERO);
  if (cmp(rounding, ZERO) !== 0) {
    o.open('rounding');
    o.leaf('roundingAmnt', money2(rounding));
    o.close('rounding');
  }
  for (const pay of pays) {
    if ((text(pay, 'PayG') ?? '').toLowerCase() === 'rounding') continue;
    o.open('payment');
    o.leaf('paymentType', paymentTypeOf(text(pay, 'PayG')));
    o.leaf('paidAmnt', money2(amount(text(pay, 'Amt'))));
    o.leaf('empID', emp, p.idMax);
    o.leaf('paymentRefID', text(pay, 'UID'), 999);
    o.close('payment');
  }
  o.leaf('signature', text(fis, 'Signature') ?? '', 999);
  o.leaf('keyVersion', text(fis, 'KeyVersion') ?? '1', 50);
  if (pem !== undefined) o.leaf('certificateData', pem.trim());
  o.leaf('receiptNum', 1);
  o.leaf('receiptCopyNum', Math.min(copyCount, 999));
  o.leaf('receiptProformaNum', 0);
  o.leaf('receiptDeliveryNum', 0);
  o.leaf('voidTransaction', tx.void ? 'true' : 'false');
  o.leaf('trainingID', tx.training ? 'true' : 'false');
  o.close('cashtransaction');
}

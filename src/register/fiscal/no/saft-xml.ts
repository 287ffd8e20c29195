/**
 * Norway: the SAF-T Cash Register file (Skatteetaten, Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd)
 * of one register, built from its journal records (a pure function: records in, XML text out).
 * Per record in the period: events (login/logout, copy, X/Z report with eventReport, Audit, POS start/stop)
 * and, per signed cash transaction, its receipt event; then the cashtransactions with lines, VAT,
 * payments and the chained signature as journaled. Codes and report figures: saft-report.ts.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Dec, ZERO, add, cmp, fmt, parseDec, rescale, sign, significantScale, sub } from '../../../shared/money.js';
import { type Obj, lines, obj } from '../../codec/index.js';
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

const XML_SPECIAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF&<>"]/;

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
    this.push(`${'\t'.repeat(this.depth)}<${name}>${XML_SPECIAL.test(v) ? escapeXml(v) : v}</${name}>`);
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

/** The SAF-T Cash Register XML of one register for a period, as text chunks (records read twice, see runPasses). */
export function saftCashRegisterXmlChunks(input: SaftStreamInput): AsyncGenerator<string> {
  return runPasses(new NoWriter(input), input.records, input.onScanned);
}

/** The SAF-T Cash Register XML of one register for a period (all records in memory; see saftCashRegisterXmlChunks). */
export function saftCashRegisterXml(input: SaftInput): string {
  return runPassesSync(new NoWriter(input), input.records);
}

class NoWriter implements PassWriter {
  private readonly o = new XmlOut();
  /** the cashtransactions, at their depth in cashregister */
  private readonly t = new XmlOut(3);
  private readonly cmp0: Obj;
  private readonly loc: Obj;
  private readonly orgnr: string;
  private readonly companyName: string;
  // first pass
  /** FN -> SQ of every cash transaction up to the end of the period */
  private readonly sqByFn = new Map<string, string>();
  /** FN -> total of every cash transaction (copy amounts) */
  private readonly totals = new Map<string, Dec>();
  private readonly copies = new Map<string, number>();
  private readonly tally = new ReportTally(this.totals);
  private readonly reports = new Map<number, Report>();
  private readonly employees = new Map<string, { name?: string; date: string; time: string }>();
  private readonly usedBasics = new Set<string>();
  private readonly artGroups = new Map<string, string>();
  private readonly rates = new Map<string, Dec>();
  private zCount = 0;
  private ended = false;
  private first: string | undefined;
  private last: string | undefined;
  private previousTx: { nr: string; signature: string } | undefined;
  private previous: { nr: string; signature: string } | undefined;
  private firstExported = true;
  private txCount = 0;
  private eventCount = 0;
  lastIndex = -1;

  constructor(private readonly input: SaftOptions) {
    const cfg = obj(input.cfg, 'Cfg') ?? input.cfg;
    this.cmp0 = obj(cfg, 'Cmp') ?? {};
    this.loc = obj(cfg, 'Loc') ?? {};
    this.orgnr = orgNumber(text(this.cmp0, 'TaxId'));
    this.companyName = text(this.cmp0, 'Nam') ?? '';
    for (const r of REPORT_RATES) this.rates.set(fmt(rescale(r, 3)), r);
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
    const z = isZ(r);
    if (z) this.zCount += 1;
    const inside = inPeriod(r, this.input.period) && r._ !== 'Cfg';
    if (inside) {
      this.lastIndex = i;
      const when = whenOf(r);
      this.first ??= when.date;
      this.last = when.date;
      const emp = employeeOf(r);
      if (emp && !this.employees.has(emp)) this.employees.set(emp, { ...(r._ === 'Tra' ? { name: text(obj(r, 'ESR'), 'OprN') } : {}), ...when });
      if (tx) {
        if (this.firstExported && tx.fn !== '1' && this.previousTx) this.previous = this.previousTx;
        this.firstExported = false;
        this.txCount += 1;
        this.usedBasics.add(receiptEventType(tx));
        this.usedBasics.add(transTypeOf(tx));
        const posA = lines(tx.esr, 'PosA').filter((l) => isPosLine(l) || isModLine(l));
        const groups = artGroupsOf(posA);
        posA.forEach((line, k) => {
          this.usedBasics.add(lineTypeOf(line));
          if (isPosLine(line)) {
            const id = groups[k] as string;
            const cat = text(line, 'Cat');
            if (!this.artGroups.has(id) || this.artGroups.get(id) === id) this.artGroups.set(id, text(line, 'CatN') || cat || 'Other');
          }
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
        const fis = obj(r, 'Fis') ?? {};
        const sq = text(r, 'SQ') ?? String(i + 1);
        const report = this.tally.report({
          kind: z ? 'Z report' : 'X report',
          // the Z's own number, as printed (Fis.Z.ZI), else its count in the file
          reportId: z ? (text(obj(fis, 'Z'), 'ZI') ?? String(this.zCount)) : `X${sq}`, company: { ident: this.orgnr, name: this.companyName },
          registerId: this.input.registerId, date: when.date, time: when.time,
        });
        this.reports.set(i, report);
        for (const p of report.payments) this.usedBasics.add(p.id);
        for (const g of report.artGroups) if (!this.artGroups.has(g.id)) this.artGroups.set(g.id, g.id === OTHER_ART_GROUP ? 'Other' : g.id);
      }
    }
    if (tx) this.previousTx = { nr: tx.fn, signature: text(tx.fis, 'Signature') ?? '' };
    if (z) this.tally.closeWindow();
  }

  endScan(): SaftScan {
    return { registerId: this.input.registerId, ...(this.previous ? { previous: this.previous } : {}), transactions: this.txCount, events: this.eventCount };
  }

  head(): void {
    const { o, input, cmp0, loc, orgnr, companyName } = this;
    const ns = input.namespace ?? SAFT_NO_NAMESPACE;
    o.raw('<?xml version="1.0" encoding="UTF-8"?>');
    o.raw(`<auditfile xmlns="${escapeXml(ns)}">`);
    o.open('header');
    const created = input.created;
    const startDate = input.period.from?.slice(0, 10) ?? this.first ?? isoDate(created);
    const endDate = input.period.till?.slice(0, 10) ?? this.last ?? isoDate(created);
    o.leaf('fiscalYear', startDate.slice(0, 4));
    o.leaf('startDate', startDate);
    o.leaf('endDate', endDate);
    o.leaf('curCode', input.currency ?? 'NOK');
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
    for (const rate of [...this.rates.values()].sort(cmp)) {
      const v = vatCodeOf(rate);
      o.open('vatCodeDetail');
      o.leaf('vatCode', v.code);
      o.leaf('dateOfEntry', startDate);
      o.leaf('vatDesc', v.desc);
      o.leaf('standardVatCode', v.standard);
      o.close('vatCodeDetail');
    }
    o.close('vatCodeDetails');

    if (this.employees.size) {
      o.open('employees');
      for (const [id, e] of this.employees) {
        o.open('employee');
        o.leaf('empID', id, 35);
        o.leaf('dateOfEntry', e.date);
        o.leaf('timeOfEntry', e.time);
        o.leaf('surName', e.name || id, 100);
        o.close('employee');
      }
      o.close('employees');
    }

    const basics = [...this.usedBasics].map((id) => BASICS[id]).filter((x) => x !== undefined);
    if (basics.length || this.artGroups.size) {
      o.open('basics');
      for (const [id, desc] of this.artGroups) {
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
  }

  event(r: Obj, i: number): void {
    if (!inPeriod(r, this.input.period) || r._ === 'Cfg') return;
    const tx = cashTxOf(r);
    const type = eventTypeOf(r, tx);
    if (!type) return;
    const when = whenOf(r);
    const emp = employeeOf(r);
    const sq = text(r, 'SQ') ?? String(i + 1);
    const base = { id: sq, type, ...(emp ? { empId: emp } : {}), ...when };
    if (tx) {
      writeEvent(this.o, { ...base, transId: sq, date: text(tx.fis, 'TransDate') ?? when.date, time: text(tx.fis, 'TransTime') ?? when.time });
    } else if (type === 'COPYREC') {
      const rfn = text(obj(r, 'Fis'), 'RFN') ?? '';
      const orig = this.sqByFn.get(rfn);
      writeEvent(this.o, { ...base, ...(orig ? { transId: orig } : {}), text: `Copy of receipt nr ${rfn}` });
    } else if (type === 'ZREP' || type === 'XREP') {
      writeEvent(this.o, { ...base, text: type === 'ZREP' ? 'Z-report' : 'X-report', ...(this.reports.has(i) ? { report: this.reports.get(i) as Report } : {}) });
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
    if (tx) writeTransaction(this.t, tx, this.copies.get(tx.fn) ?? 0);
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

function address(o: XmlOut, name: string, a: Obj): void {
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

function writeEvent(o: XmlOut, e: EventOut): void {
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

function counted(o: XmlOut, list: string, item: string, names: [string, string, string], entries: Report['artGroups']): void {
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

function writeReport(o: XmlOut, r: Report): void {
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

function vatBlock(o: XmlOut, rate: Dec, vat: Dec, base: Dec): void {
  o.open('vat');
  o.leaf('vatCode', vatCodeOf(rate).code);
  o.leaf('vatPerc', percent(rate));
  o.leaf('vatAmnt', money2(vat));
  o.leaf('vatAmntTp', tp(base));
  o.leaf('vatBasAmnt', money2(base));
  o.close('vat');
}

function writeTransaction(o: XmlOut, tx: CashTx, copyCount: number): void {
  const fis = tx.fis;
  const esr = tx.esr;
  const emp = text(esr, 'Opr') || undefined;
  const amntIn = amount(text(fis, 'AmntIn'));
  const taxA = vatTaxA(esr);
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
    o.leaf('lineType', lineTypeOf(line));
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

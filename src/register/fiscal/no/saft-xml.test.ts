/**
 * The Norwegian SAF-T Cash Register export: two days of a register's journal built here (sales with two
 * VAT rates and a discount, a return, a training receipt, a void, a copy, login/logout, drawer openings,
 * a price look-up, X and Z reports, pay-in and pay-out), signed here with a real 1024-bit RSA key by the
 * contract's string. The file must pass xmllint against Skatteetaten's XSD (keyrefs included), its
 * signature chain must verify with openssl, a tampered amount must break it, and the Z reports must
 * carry the totals summed here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Obj } from '../../codec/index.js';
import { type XmlElement, child, children, parseXml, textOf } from '../../codec/xml-tree.js';
import { vectorPath } from '../../../shared/testing.js';
import { saftCashRegisterXml, saftFileName } from './saft-xml.js';

const XSD = vectorPath('no-saft', 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd');
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024, publicExponent: 65537 });
const PUB_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();

const CFG: Obj = {
  Cfg: {
    Cmp: { Nam: 'Bakeri & Kafé <Nord> AS', TaxId: 'NO 999 888 777 MVA', Adr: 'Storgata 1', Zip: '0155', City: 'Oslo' },
    Loc: { TL: '1', Nam: 'Butikk Grünerløkka', Adr: 'Thorvald Meyers gate 2', Zip: '0555', City: 'Oslo' },
    Trm: { TT: '1' },
  },
};

/** Cents from a decimal text (test-side arithmetic, independent of the module's). */
const cents = (s: string): number => Math.round(Number(s) * 100);
const money = (c: number): string => `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;

/** A journal of one register, signed as the contract says. */
class Journal {
  records: Obj[] = [];
  private sq = 0;
  private fn = 0;
  private prev = '0';

  private base(type: string, ts: string): Obj {
    this.sq += 1;
    return { _: type, SQ: String(this.sq), RN: 'R1', TS: ts };
  }

  signed(bc: string, ts: string, esr: Obj, bcf?: string): Obj {
    const r = this.base('Tra', ts);
    r.BC = bc;
    if (bcf) r.BCF = bcf;
    const d = esr.D as string;
    const t = cents(esr.T as string);
    const tax = ((esr.TaxA as Obj[] | undefined) ?? []).reduce((s, x) => s + cents(x.TAmt as string), 0);
    this.fn += 1;
    const fis: Obj = {
      D: ts, FN: String(this.fn), TransDate: d.slice(0, 10), TransTime: d.slice(11, 19), AmntIn: money(t), AmntEx: money(t - tax),
    };
    const payload = [this.prev, fis.TransDate, fis.TransTime, fis.FN, fis.AmntIn, fis.AmntEx].join(';');
    fis.Signature = sign('sha1', Buffer.from(payload, 'utf8'), privateKey).toString('base64');
    fis.KeyVersion = '1';
    if (bcf?.includes('test') || bc === 'training') fis.Training = '1';
    fis.Tag = [];
    this.prev = fis.Signature;
    r.ESR = esr;
    r.Fis = fis;
    this.records.push(r);
    return r;
  }

  event(bc: string, ts: string, esr: Obj, fis: Obj = {}): Obj {
    const r = this.base('Tra', ts);
    r.BC = bc;
    r.ESR = esr;
    r.Fis = { D: ts, ...fis };
    this.records.push(r);
    return r;
  }

  audit(ts: string, type: string, opr?: string, txt?: string): void {
    const r = this.base('Audit', ts);
    r.Audit = { Type: type, ...(opr ? { Opr: opr } : {}), ...(txt ? { Txt: txt } : {}) };
    this.records.push(r);
  }

  log(ts: string, event: 'start' | 'stop'): void {
    this.records.push({ ...this.base('log', ts), Event: event });
  }

  cfg(ts: string): void {
    this.records.push({ ...this.base('Cfg', ts), ...CFG });
  }
}

const opr = { Opr: '7', OprN: 'Kari Nordmann' };
const opr2 = { Opr: '8', OprN: 'Ola <&> Nordmann' };

function journal(): Journal {
  const j = new Journal();
  // day 1
  j.log('2024-03-04T08:00:00', 'start');
  j.cfg('2024-03-04T08:00:01');
  j.event('login', '2024-03-04T08:01:00', { D: '2024-03-04T08:01:00', NFS: 'LOGIN', ...opr });
  j.signed('sale', '2024-03-04T09:00:05', {
    D: '2024-03-04T09:00:00', TL: '1', TT: '1', TN: '1', T: '100.70', ...opr,
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Grovbrød', TaxG: 'A', Amt: '25.90', Qty: '1', Pri: '25.90', Cat: '04006', CatN: 'Food' },
      { _: 'Pos', PN: '2', Dsc: 'Øl 0,5 l', TaxG: 'B', Amt: '79.80', Qty: '2', Pri: '39.90', Cat: '04007', CatN: 'Beer' },
      { _: 'Mod', PN: '2', Dsc: 'Rabatt', TaxG: 'B', Amt: '-5.00' },
    ],
    PayA: [{ _: 'Pay', Dsc: 'Kontant', Amt: '200.00', PayG: 'cash' }, { _: 'Pay', Dsc: 'Veksel', Amt: '-99.30', PayG: 'change' }],
    TaxA: [
      { _: 'Tax', TaxG: 'A', Prc: '15', Net: '22.52', TAmt: '3.38', Amt: '25.90' },
      { _: 'Tax', TaxG: 'B', Prc: '25', Net: '59.84', TAmt: '14.96', Amt: '74.80' },
    ],
  });
  j.audit('2024-03-04T09:10:00', 'DrawerOpen', '7');
  j.signed('return', '2024-03-04T09:20:05', {
    D: '2024-03-04T09:20:00', TL: '1', TT: '1', TN: '2', T: '-39.90', RFN: '1', ...opr,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Øl 0,5 l', TaxG: 'B', Amt: '-39.90', Qty: '-1', Pri: '39.90', Cat: '04007', CatN: 'Beer' }],
    PayA: [{ _: 'Pay', Dsc: 'Kontant', Amt: '-39.90', PayG: 'cash' }],
    TaxA: [{ _: 'Tax', TaxG: 'B', Prc: '25', Net: '-31.92', TAmt: '-7.98', Amt: '-39.90' }],
  });
  j.audit('2024-03-04T09:25:00', 'TrainingOn', '7');
  j.signed('sale', '2024-03-04T09:30:05', {
    D: '2024-03-04T09:30:00', TL: '1', TT: '1', TN: '3', T: '50.00', Test: '1', ...opr,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kake', TaxG: 'B', Amt: '50.00', Cat: '04006', CatN: 'Food' }],
    PayA: [{ _: 'Pay', Dsc: 'Kontant', Amt: '50.00', PayG: 'cash' }],
    TaxA: [{ _: 'Tax', TaxG: 'B', Prc: '25', Net: '40.00', TAmt: '10.00', Amt: '50.00' }],
  }, 'test');
  j.audit('2024-03-04T09:31:00', 'TrainingOff', '7');
  j.signed('sale', '2024-03-04T10:00:05', {
    D: '2024-03-04T10:00:00', TL: '1', TT: '1', TN: '4', T: '35.00', ...opr,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: '35.00', Cat: '04012', CatN: 'Other drinks' }],
    PayA: [{ _: 'Pay', Dsc: 'BankAxept', Amt: '35.00', PayG: 'debitcard', UID: 'BAX 568833-1' }],
    TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '15', Net: '30.43', TAmt: '4.57', Amt: '35.00' }],
  });
  j.signed('void', '2024-03-04T10:02:05', {
    D: '2024-03-04T10:02:00', TL: '1', TT: '1', TN: '5', T: '-35.00', Void: '1', RFN: '4', ...opr,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: '-35.00', Cat: '04012', CatN: 'Other drinks' }],
    PayA: [{ _: 'Pay', Dsc: 'BankAxept', Amt: '-35.00', PayG: 'debitcard' }],
    TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '15', Net: '-30.43', TAmt: '-4.57', Amt: '-35.00' }],
  });
  j.event('reprint', '2024-03-04T10:05:00', { D: '2024-03-04T10:05:00', NFS: 'DUP', ...opr }, { RFN: '1' });
  j.audit('2024-03-04T10:10:00', 'PriceLookup', '7', 'Grovbrød 25.90');
  j.event('xreport', '2024-03-04T12:00:00', { D: '2024-03-04T12:00:00', NFS: 'X', ...opr }, { X: { T: '60.80' } });
  j.audit('2024-03-04T12:05:00', 'DrawerOpen', '7');
  j.event('closing', '2024-03-04T22:00:00', { D: '2024-03-04T22:00:00', NFS: 'Z', ...opr }, { Z: { T: '60.80' } });
  j.event('logout', '2024-03-04T22:01:00', { D: '2024-03-04T22:01:00', NFS: 'LOGOUT', ...opr });
  j.log('2024-03-04T22:02:00', 'stop');
  // day 2
  j.log('2024-03-05T07:59:00', 'start');
  j.event('login', '2024-03-05T08:00:00', { D: '2024-03-05T08:00:00', NFS: 'LOGIN', ...opr2 });
  j.signed('payin', '2024-03-05T08:01:05', {
    D: '2024-03-05T08:01:00', TL: '1', TT: '1', TN: '6', T: '500.00', ...opr2, PosA: [],
    PayA: [{ _: 'Pay', Dsc: 'Veksel', Amt: '500.00', PayG: 'cash' }],
  });
  j.signed('sale', '2024-03-05T09:00:05', {
    D: '2024-03-05T09:00:00', TL: '1', TT: '1', TN: '7', T: '125.00', ...opr2,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Bløtkake "stor"', TaxG: 'B', Amt: '125.00', Cat: '04006', CatN: 'Food' }],
    PayA: [{ _: 'Pay', Dsc: 'Vipps', Amt: '125.00', PayG: 'mobile' }],
    TaxA: [{ _: 'Tax', TaxG: 'B', Prc: '25', Net: '100.00', TAmt: '25.00', Amt: '125.00' }],
  });
  j.signed('payout', '2024-03-05T15:00:05', {
    D: '2024-03-05T15:00:00', TL: '1', TT: '1', TN: '8', T: '-100.00', ...opr2, PosA: [],
    PayA: [{ _: 'Pay', Dsc: 'Bank', Amt: '-100.00', PayG: 'cash' }],
  });
  j.event('closing', '2024-03-05T22:00:00', { D: '2024-03-05T22:00:00', NFS: 'Z', ...opr2 }, { Z: { T: '125.00' } });
  return j;
}

const INPUT = {
  cfg: CFG,
  registerId: '1/1',
  created: new Date(2024, 2, 6, 10, 40, 0),
  software: { name: 'EFR', version: '0.1.0', company: 'EFR project' },
};

/**
 * The official schema's identity constraints (keys and keyrefs: empID, basicID, reportID, artID, accID)
 * use XPaths without a prefix, which in XSD 1.0 match only elements in no namespace; the file's elements
 * are in the SAF-T namespace, so the official schema alone checks no keyref at all. This copy, made
 * here and never stored, prefixes every selector/field step with the namespace so xmllint checks them.
 */
function keyrefSchema(dir: string): string {
  const xsd = readFileSync(XSD, 'utf8');
  const fixed = xsd
    .replace(/(<xsd:(?:selector|field) xpath=")([^"]*)"/g, (_m, head: string, path: string) =>
      `${head}${path.split('/').map((step) => (step === '.' || step === '' ? step : `n:${step}`)).join('/')}"`)
    .replace('<xsd:schema ', '<xsd:schema xmlns:n="urn:StandardAuditFile-Taxation-CashRegister:NO" ');
  assert.equal((fixed.match(/xpath="[^"]*n:/g) ?? []).length, (xsd.match(/xpath="/g) ?? []).length, 'every XPath prefixed');
  const path = join(dir, 'keyrefs.xsd');
  writeFileSync(path, fixed);
  return path;
}

/** xmllint against the official schema, then against the keyref-checking copy; the first failure wins. */
function xmllint(xml: string): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'saft-no-'));
  try {
    const file = join(dir, 'saft.xml');
    writeFileSync(file, xml);
    for (const schema of [XSD, keyrefSchema(dir)]) {
      const r = spawnSync('xmllint', ['--noout', '--schema', schema, file], { encoding: 'utf8' });
      if (r.status !== 0) return { status: r.status, stderr: r.stderr };
    }
    return { status: 0, stderr: '' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function register(xml: string): XmlElement {
  const root = parseXml(xml);
  const reg = child(child(child(child(root, 'auditfile'), 'company'), 'location'), 'cashregister');
  assert.ok(reg, 'a cashregister element');
  return reg;
}

/** The signature chain of the file's cashtransactions, checked by openssl (false at the first failure). */
function chainVerifiesWithOpenssl(txs: XmlElement[]): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'saft-no-sig-'));
  try {
    writeFileSync(join(dir, 'pub.pem'), PUB_PEM);
    let prev = '0';
    for (const [i, tx] of txs.entries()) {
      const data = [prev, textOf(tx, 'transDate'), textOf(tx, 'transTime'), textOf(tx, 'nr'), textOf(tx, 'transAmntIn'), textOf(tx, 'transAmntEx')].join(';');
      const sig = textOf(tx, 'signature') ?? '';
      writeFileSync(join(dir, `d${i}`), data);
      writeFileSync(join(dir, `s${i}`), Buffer.from(sig, 'base64'));
      const r = spawnSync('openssl', ['dgst', '-sha1', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, `s${i}`), join(dir, `d${i}`)], { encoding: 'utf8' });
      if (r.status !== 0) return false;
      prev = sig;
    }
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Test-side expectations of a Z report: sums over the journal in integer øre. */
function expected(records: Obj[], from: number, to: number): Record<string, string | number> {
  let total = 0;
  let sales = 0;
  let returns = 0;
  let training = 0;
  let trainingNum = 0;
  let voids = 0;
  let receipts = 0;
  let drawer = 0;
  records.forEach((r, i) => {
    const fis = r.Fis as Obj | undefined;
    const esr = r.ESR as Obj | undefined;
    const signedTx = r._ === 'Tra' && fis?.Signature !== undefined;
    if (i <= to && signedTx && fis?.Training !== '1' && !['payin', 'payout'].includes(r.BC as string)) {
      const t = cents(esr?.T as string);
      if (t >= 0) sales += t;
      else returns -= t;
    }
    if (i < from || i > to) return;
    if (r._ === 'Audit' && (r.Audit as Obj).Type === 'DrawerOpen') drawer += 1;
    if (!signedTx || ['payin', 'payout'].includes(r.BC as string)) return;
    const t = cents(esr?.T as string);
    if (fis?.Training === '1') {
      training += t;
      trainingNum += 1;
      return;
    }
    total += t;
    if (r.BC === 'void') voids += 1;
    else if (t >= 0) receipts += 1;
  });
  return {
    totalCashSaleAmnt: money(total), reportTrainingAmnt: money(training), reportTrainingNum: trainingNum, reportVoidTransNum: voids,
    reportReceiptNum: receipts, reportOpenCashBoxNum: drawer,
    reportGrandTotalSales: money(sales), reportGrandTotalReturn: money(returns), reportGrandTotalSalesNet: money(sales - returns),
  };
}

test('NO SAF-T: two days of a register validate against the XSD, the chain verifies, the Z totals add up', () => {
  const j = journal();
  const xml = saftCashRegisterXml({ ...INPUT, records: j.records, period: { from: '2024-03-04', till: '2024-03-05' } });
  const lint = xmllint(xml);
  assert.equal(lint.status, 0, lint.stderr);

  const root = parseXml(xml);
  const company = child(child(root, 'auditfile'), 'company');
  assert.equal(textOf(company, 'companyIdent'), '999888777');
  assert.equal(textOf(company, 'taxRegIdent'), '999888777MVA');
  assert.equal(textOf(company, 'companyName'), 'Bakeri & Kafé <Nord> AS');
  const emps = children(child(company, 'employees'), 'employee');
  assert.deepEqual(emps.map((e) => [textOf(e, 'empID'), textOf(e, 'surName')]), [['7', 'Kari Nordmann'], ['8', 'Ola <&> Nordmann']]);

  const reg = register(xml);
  const txs = children(reg, 'cashtransaction');
  assert.equal(txs.length, 8, 'every signed transaction, training included');
  assert.deepEqual(txs.map((t) => textOf(t, 'nr')), ['1', '2', '3', '4', '5', '6', '7', '8']);
  for (const t of txs) assert.match(textOf(t, 'signature') ?? '', /^[A-Za-z0-9+/]{171}=$/);
  assert.ok(chainVerifiesWithOpenssl(txs), 'the signature chain verifies with openssl');

  // a tampered amount breaks the chain
  const tampered = txs.map((t) => ({ ...t, children: t.children.map((c) => ({ ...c })) }));
  const amnt = (tampered[3] as XmlElement).children.find((c) => c.name === 'transAmntIn') as XmlElement;
  amnt.text = '36.00';
  assert.equal(chainVerifiesWithOpenssl(tampered), false, 'a changed transAmntIn is caught');

  const byNr = (nr: string): XmlElement => txs.find((t) => textOf(t, 'nr') === nr) as XmlElement;
  assert.equal(textOf(byNr('1'), 'receiptCopyNum'), '1', 'the reprinted sale');
  assert.equal(textOf(byNr('4'), 'receiptCopyNum'), '0');
  assert.equal(textOf(byNr('3'), 'trainingID'), 'true');
  assert.equal(textOf(byNr('1'), 'trainingID'), 'false');
  assert.equal(textOf(byNr('5'), 'voidTransaction'), 'true');
  assert.equal(textOf(byNr('2'), 'transType'), 'RETURNSAL');
  assert.equal(textOf(byNr('2'), 'amntTp'), 'D');
  assert.equal(textOf(byNr('6'), 'transType'), 'PAYIN');
  assert.equal(textOf(byNr('8'), 'transType'), 'PAYOUT');
  // the first sale: three lines, VAT per line and per rate, exact
  const lines1 = children(byNr('1'), 'ctLine');
  assert.deepEqual(lines1.map((l) => [textOf(l, 'lineType'), textOf(l, 'lineAmntIn'), textOf(l, 'lineAmntEx'), textOf(child(l, 'vat'), 'vatPerc')]), [
    ['SAL', '25.90', '22.52', '15.00'],
    ['SAL', '79.80', '63.84', '25.00'],
    ['DSC', '-5.00', '-4.00', '25.00'],
  ]);
  assert.deepEqual(children(byNr('1'), 'vat').map((v) => [textOf(v, 'vatCode'), textOf(v, 'vatAmnt'), textOf(v, 'vatBasAmnt')]), [['31', '3.38', '22.52'], ['3', '14.96', '59.84']]);
  assert.deepEqual(children(byNr('1'), 'payment').map((p) => [textOf(p, 'paymentType'), textOf(p, 'paidAmnt')]), [['CASH', '200.00'], ['CASH', '-99.30']]);
  assert.equal(textOf(children(byNr('2'), 'ctLine')[0], 'lineType'), 'RET');

  // events: all before the transactions, receipt events name their transaction
  const events = children(reg, 'event');
  const firstTx = reg.children.findIndex((c) => c.name === 'cashtransaction');
  assert.ok(reg.children.slice(firstTx).every((c) => c.name === 'cashtransaction'));
  const typeOf = (sq: string): string | undefined => textOf(events.find((e) => textOf(e, 'eventID') === sq), 'eventType');
  assert.equal(typeOf('4'), 'SALREC');
  assert.equal(typeOf('6'), 'RETREC');
  assert.equal(typeOf('8'), 'TRAINREC');
  assert.equal(typeOf('11'), 'VOIDREC');
  assert.equal(typeOf('3'), 'EMPIN');
  assert.equal(typeOf('17'), 'EMPOUT');
  assert.equal(typeOf('1'), 'POSSTART');
  assert.equal(typeOf('5'), 'DRAWOPEN');
  const copy = events.find((e) => textOf(e, 'eventType') === 'COPYREC');
  assert.equal(textOf(copy, 'transID'), '4', 'the copy event names the original transaction');

  // reports
  const reports = events.filter((e) => child(e, 'eventReport')).map((e) => child(e, 'eventReport') as XmlElement);
  assert.deepEqual(reports.map((r) => [textOf(r, 'reportType'), textOf(r, 'reportID')]), [['X report', 'X14'], ['Z report', '1'], ['Z report', '2']]);
  const idx = (sq: string): number => j.records.findIndex((r) => r.SQ === sq);
  const check = (report: XmlElement, exp: Record<string, string | number>): void => {
    assert.equal(textOf(child(report, 'reportTotalCashSales'), 'totalCashSaleAmnt'), exp.totalCashSaleAmnt);
    for (const k of Object.keys(exp).filter((k) => k !== 'totalCashSaleAmnt')) assert.equal(textOf(report, k), String(exp[k]), k);
  };
  const z1 = reports[1] as XmlElement;
  const z2 = reports[2] as XmlElement;
  check(z1, expected(j.records, 0, idx('16')));
  check(z2, expected(j.records, idx('16') + 1, idx('24')));
  // and the figures spelled out once
  assert.equal(textOf(child(z1, 'reportTotalCashSales'), 'totalCashSaleAmnt'), '60.80');
  assert.equal(textOf(z1, 'reportGrandTotalSales'), '135.70');
  assert.equal(textOf(z2, 'reportGrandTotalSalesNet'), '185.80');
  assert.equal(textOf(z1, 'reportReceiptCopyNum'), '1');
  assert.equal(textOf(z1, 'reportReceiptCopyAmnt'), '100.70');
  assert.equal(textOf(z1, 'reportReturnNum'), '1');
  assert.equal(textOf(z1, 'reportReturnAmnt'), '39.90');
  assert.equal(textOf(z1, 'reportDiscountNum'), '1');
  assert.equal(textOf(z1, 'reportDiscountAmnt'), '5.00');
  assert.equal(textOf(z1, 'reportVoidTransAmnt'), '35.00');
  assert.equal(textOf(z2, 'reportOpeningChangeFloat'), '500.00');
  assert.equal(textOf(z1, 'reportOpeningChangeFloat'), '0.00');
  const pays = (r: XmlElement): string[][] => children(child(r, 'reportPayments'), 'reportPayment').map((p) => [textOf(p, 'paymentType') ?? '', textOf(p, 'paymentAmnt') ?? '']);
  assert.deepEqual(pays(z1), [['CASH', '60.80'], ['DEBCARD', '0.00']]);
  assert.deepEqual(pays(z2), [['MOBILE', '125.00']]);
  const vat = (r: XmlElement): string[][] => children(child(r, 'reportCashSalesVat'), 'reportCashSaleVat').map((v) => [textOf(v, 'vatPerc') ?? '', textOf(v, 'cashSaleAmnt') ?? '', textOf(v, 'vatAmnt') ?? '']);
  assert.deepEqual(vat(z1), [['0.00', '0.00', '0.00'], ['12.00', '0.00', '0.00'], ['15.00', '22.52', '3.38'], ['25.00', '27.92', '6.98']]);
  const groups = children(child(z1, 'reportArtGroups'), 'reportArtGroup').map((g) => [textOf(g, 'artGroupID'), textOf(g, 'artGroupNum'), textOf(g, 'artGroupAmnt')]);
  assert.deepEqual(groups, [['04006', '1', '25.90'], ['04007', '1', '34.90'], ['04012', '0', '0.00']]);
  assert.deepEqual(children(child(z2, 'reportPayOuts'), 'reportPayOut').map((p) => [textOf(p, 'payOutType'), textOf(p, 'payOutAmnt')]), [['PAYOUT', '100.00']]);
});

test('NO SAF-T: a period selects records, the report of a later day still has grand totals from the start', () => {
  const j = journal();
  const xml = saftCashRegisterXml({ ...INPUT, records: j.records, period: { from: '2024-03-05', till: '2024-03-05' } });
  const lint = xmllint(xml);
  assert.equal(lint.status, 0, lint.stderr);
  const reg = register(xml);
  assert.deepEqual(children(reg, 'cashtransaction').map((t) => textOf(t, 'nr')), ['6', '7', '8']);
  const z = children(reg, 'event').map((e) => child(e, 'eventReport')).find(Boolean) as XmlElement;
  assert.equal(textOf(z, 'reportGrandTotalSales'), '260.70');
  assert.equal(textOf(z, 'reportGrandTotalReturn'), '74.90');
});

test('NO SAF-T: an empty period and an empty journal give valid files', () => {
  for (const records of [journal().records, []]) {
    const xml = saftCashRegisterXml({ ...INPUT, records, period: { from: '2023-01-01', till: '2023-01-31' } });
    const lint = xmllint(xml);
    assert.equal(lint.status, 0, lint.stderr);
    const reg = register(xml);
    assert.equal(children(reg, 'cashtransaction').length, 0);
    assert.equal(children(reg, 'event').length, 0);
    const header = child(child(parseXml(xml), 'auditfile'), 'header');
    assert.equal(textOf(header, 'startDate'), '2023-01-01');
    assert.equal(textOf(header, 'endDate'), '2023-01-31');
  }
});

test('NO SAF-T: the keyrefs are checked: the official example passes, an undeclared employee or event type fails', () => {
  const example = readFileSync(vectorPath('no-saft', 'ExampleFile SAF-T Cash Register_999999999_20210330104000.xml'), 'utf8');
  assert.equal(xmllint(example).status, 0);
  assert.notEqual(xmllint(example.replace('<eventType>ZREP</eventType>', '<eventType>NOPE</eventType>')).status, 0);
  const xml = saftCashRegisterXml({ ...INPUT, records: journal().records, period: {} });
  assert.equal(xmllint(xml).status, 0);
  const [head, tail] = xml.split('</employees>') as [string, string];
  const broken = `${head}</employees>${tail.replaceAll('<empID>8</empID>', '<empID>99</empID>')}`;
  assert.notEqual(broken, xml);
  assert.notEqual(xmllint(broken).status, 0);
});

test('NO SAF-T: file name and signature sanity', () => {
  assert.equal(saftFileName('NO999888777MVA', new Date(2021, 2, 30, 10, 40, 0)), 'SAF-T Cash Register_999888777_20210330104000.xml');
  const s = sign('sha1', Buffer.from('0;2014-01-24;23:59:59;123456789;1250.00;1000.00'), privateKey);
  assert.ok(verify('sha1', Buffer.from('0;2014-01-24;23:59:59;123456789;1250.00;1000.00'), publicKey, s));
});

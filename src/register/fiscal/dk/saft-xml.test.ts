/**
 * The Danish SAF-T Cash Register export: a register's journal built here (sales at 25 %, a return, a
 * training receipt, a void, a copy, login/logout, drawer, X and Z reports, a pay-in), each cash
 * transaction signed here with a 2048-bit RSA key (RSA PKCS#1 v1.5 SHA-512 over the Danish string) whose
 * self-signed certificate openssl made. The file must pass xmllint against UFST's XSD v1.0.3 (and a
 * keyref-checking copy), every signature must verify with `openssl dgst -sha512 -verify` under the key of
 * its certificateData, and the verifier must pass the file and name a tampered amount.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Obj } from '../../codec/index.js';
import { type XmlElement, child, children, parseXml, textOf } from '../../codec/xml-tree.js';
import { VERIFIERS } from '../verifiers.js';
import { danishSaftFileName, danishSaftXml } from './saft-xml.js';
import { vectorPath } from '../../../shared/testing.js';
import { verifyDanishExport } from './verify.js';

const FIX = vectorPath('dk-saft');
const XSD = join(FIX, 'Danish_SAF-T_Cash_Register_Schema_v_1.0.3.xsd');
const CATALOG = join(FIX, 'catalog.xml');

/** A 2048-bit key and a self-signed certificate, made by openssl. */
function makeCertificate(): { keyPem: string; certPem: string; serial: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dk-cert-'));
  try {
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/C=DK/O=Test/CN=Test POS', '-days', '3650',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const certPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    return { keyPem: readFileSync(join(dir, 'key.pem'), 'utf8'), certPem, serial: new X509Certificate(certPem).serialNumber.toUpperCase() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CERT = makeCertificate();
const KEY = createPrivateKey(CERT.keyPem);
const CVR = '12345678';
const CFG: Obj = {
  Cfg: {
    Cmp: { Nam: 'Bager & Café <Nord> ApS', TaxId: `DK${CVR}`, Adr: 'Strøget', AdrNr: '12', Zip: '1160', City: 'København K' },
    Loc: { TL: '1', Nam: 'Butik Nørrebro', Adr: 'Nørrebrogade', Zip: '2200', City: 'København N' },
    Trm: { TT: 'KASSE-1' },
  },
};

const cents = (s: string): number => Math.round(Number(s) * 100);
const money = (c: number): string => `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;

/** A journal of one register, signed as the Danish contract says. */
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
    const transType = bc === 'payin' ? 'PAYIN' : bc === 'payout' ? 'PAYOUT' : t < 0 ? 'RETURNSAL' : 'CASHSAL';
    const fis: Obj = {
      D: ts, FN: String(this.fn), TransID: r.SQ, TransType: transType, EmpID: (esr.Opr as string | undefined) ?? 'POS', RegisterID: 'KASSE-1',
      CompanyIdent: CVR, TransDate: d.slice(0, 10), TransTime: d.slice(11, 19), AmntIn: money(t), AmntEx: money(t - tax),
    };
    const msg = [this.prev, fis.FN, fis.TransID, fis.TransType, fis.TransDate, fis.TransTime, fis.EmpID, fis.AmntIn, fis.AmntEx, fis.RegisterID, fis.CompanyIdent].join(';');
    fis.Signature = sign('sha512', Buffer.from(msg, 'utf8'), KEY).toString('base64');
    fis.KeyVersion = '1';
    fis.CertSerial = CERT.serial;
    if (bcf?.includes('test') || bc === 'training') fis.Training = '1';
    this.prev = fis.Signature as string;
    r.ESR = esr;
    r.Fis = fis;
    this.records.push(r);
    return r;
  }

  event(bc: string, ts: string, esr: Obj, fis: Obj = {}): void {
    const r = this.base('Tra', ts);
    r.BC = bc;
    r.ESR = esr;
    r.Fis = { D: ts, ...fis };
    this.records.push(r);
  }

  audit(ts: string, type: string, opr?: string): void {
    const r = this.base('Audit', ts);
    r.Audit = { Type: type, ...(opr ? { Opr: opr } : {}) };
    this.records.push(r);
  }

  log(ts: string, event: 'start' | 'stop'): void {
    this.records.push({ ...this.base('log', ts), Event: event });
  }
}

const opr = { Opr: '7', OprN: 'Karen Hansen' };

function journal(): Journal {
  const j = new Journal();
  j.log('2025-03-04T08:00:00', 'start');
  j.event('login', '2025-03-04T08:01:00', { D: '2025-03-04T08:01:00', NFS: 'LOGIN', ...opr });
  j.signed('sale', '2025-03-04T09:00:05', {
    D: '2025-03-04T09:00:00', TL: '1', TT: 'KASSE-1', TN: '1', T: '120.00', ...opr,
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Rugbrød', TaxG: 'A', Amt: '45.00', Qty: '1', Pri: '45.00', Cat: '04006', CatN: 'Food', SKU: '5701234' },
      { _: 'Pos', PN: '2', Dsc: 'Øl "Classic"', TaxG: 'A', Amt: '80.00', Qty: '2', Pri: '40.00', Cat: '04007', CatN: 'Beer' },
      { _: 'Mod', PN: '2', Dsc: 'Rabat', TaxG: 'A', Amt: '-5.00' },
    ],
    PayA: [{ _: 'Pay', Dsc: 'Kontant', Amt: '200.00', PayG: 'cash' }, { _: 'Pay', Dsc: 'Byttepenge', Amt: '-80.00', PayG: 'change' }],
    TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '25', Net: '96.00', TAmt: '24.00', Amt: '120.00' }],
  });
  j.audit('2025-03-04T09:10:00', 'DrawerOpen', '7');
  j.signed('return', '2025-03-04T09:20:05', {
    D: '2025-03-04T09:20:00', TL: '1', TT: 'KASSE-1', TN: '2', T: '-40.00', RFN: '1', ...opr,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Øl "Classic"', TaxG: 'A', Amt: '-40.00', Qty: '-1', Pri: '40.00', Cat: '04007', CatN: 'Beer' }],
    PayA: [{ _: 'Pay', Dsc: 'Kontant', Amt: '-40.00', PayG: 'cash' }],
    TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '25', Net: '-32.00', TAmt: '-8.00', Amt: '-40.00' }],
  });
  j.signed('sale', '2025-03-04T09:30:05', {
    D: '2025-03-04T09:30:00', TL: '1', TT: 'KASSE-1', TN: '3', T: '50.00', Test: '1', ...opr,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kage', TaxG: 'A', Amt: '50.00' }],
    PayA: [{ _: 'Pay', Dsc: 'Kontant', Amt: '50.00', PayG: 'cash' }],
    TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '25', Net: '40.00', TAmt: '10.00', Amt: '50.00' }],
  }, 'test');
  j.signed('sale', '2025-03-04T10:00:05', {
    D: '2025-03-04T10:00:00', TL: '1', TT: 'KASSE-1', TN: '4', T: '35.00', ...opr,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: '35.00', Cat: '04012' }],
    PayA: [{ _: 'Pay', Dsc: 'Dankort', Amt: '35.00', PayG: 'debitcard', UID: 'DK 568833-1' }],
    TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '25', Net: '28.00', TAmt: '7.00', Amt: '35.00' }],
  });
  j.signed('void', '2025-03-04T10:02:05', {
    D: '2025-03-04T10:02:00', TL: '1', TT: 'KASSE-1', TN: '5', T: '-35.00', Void: '1', RFN: '4', ...opr,
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: '-35.00', Cat: '04012' }],
    PayA: [{ _: 'Pay', Dsc: 'Dankort', Amt: '-35.00', PayG: 'debitcard', UID: 'DK 568833-2' }],
    TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '25', Net: '-28.00', TAmt: '-7.00', Amt: '-35.00' }],
  });
  j.event('reprint', '2025-03-04T10:05:00', { D: '2025-03-04T10:05:00', NFS: 'DUP', ...opr }, { RFN: '1' });
  j.event('xreport', '2025-03-04T12:00:00', { D: '2025-03-04T12:00:00', NFS: 'X', ...opr }, { X: { T: '80.00' } });
  j.signed('payin', '2025-03-04T12:30:05', {
    D: '2025-03-04T12:30:00', TL: '1', TT: 'KASSE-1', TN: '6', T: '500.00', PosA: [],
    PayA: [{ _: 'Pay', Dsc: 'Byttepenge', Amt: '500.00', PayG: 'cash' }],
  });
  j.event('closing', '2025-03-04T22:00:00', { D: '2025-03-04T22:00:00', NFS: 'Z', ...opr }, { Z: { T: '80.00' } });
  j.event('logout', '2025-03-04T22:01:00', { D: '2025-03-04T22:01:00', NFS: 'LOGOUT', ...opr });
  j.log('2025-03-04T22:02:00', 'stop');
  return j;
}

const INPUT = {
  cfg: CFG,
  registerId: 'KASSE-1',
  created: new Date(2025, 2, 5, 10, 40, 0),
  software: { name: 'EFR', version: '0.1.0', company: 'EFR project' },
  certificates: { [CERT.serial]: CERT.certPem },
};

/** The schema with every selector/field step prefixed by the namespace, so xmllint checks the keyrefs too. */
function keyrefSchema(dir: string): string {
  const xsd = readFileSync(XSD, 'utf8');
  const fixed = xsd
    .replace(/(<xsd:(?:selector|field)\s+xpath=")([^"]*)"/g, (_m, head: string, path: string) =>
      `${head}${path.split('/').map((step) => (step === '.' || step === '' ? step : `n:${step}`)).join('/')}"`)
    .replace('<xsd:schema ', '<xsd:schema xmlns:n="urn:StandardAuditFile-Taxation-CashRegister:DK" ')
    .replace('schemaLocation="http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd"', `schemaLocation="${join(FIX, 'xmldsig-core-schema.xsd')}"`);
  assert.equal((fixed.match(/xpath="[^"]*n:/g) ?? []).length, (xsd.match(/xpath="/g) ?? []).length, 'every XPath prefixed');
  const path = join(dir, 'keyrefs.xsd');
  writeFileSync(path, fixed);
  return path;
}

function xmllint(xml: string): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'saft-dk-'));
  try {
    const file = join(dir, 'saft.xml');
    writeFileSync(file, xml);
    for (const schema of [XSD, keyrefSchema(dir)]) {
      const r = spawnSync('xmllint', ['--nonet', '--noout', '--schema', schema, file], { encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: CATALOG } });
      if (r.status !== 0) return { status: r.status, stderr: r.stderr };
    }
    return { status: 0, stderr: '' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function company(xml: string): XmlElement {
  const c = child(child(parseXml(xml), 'auditfile'), 'company');
  assert.ok(c);
  return c;
}

function transactions(xml: string): XmlElement[] {
  return children(child(child(company(xml), 'location'), 'cashregister'), 'cashtransaction');
}

/** Every signature checked by openssl, the key taken from its certificateData; the index of the first failure, or -1. */
function firstOpensslFailure(xml: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'saft-dk-sig-'));
  try {
    const cvr = textOf(company(xml), 'companyIdent') ?? '';
    const reg = textOf(child(child(company(xml), 'location'), 'cashregister'), 'registerID') ?? '';
    let prev = '0';
    for (const [i, tx] of transactions(xml).entries()) {
      writeFileSync(join(dir, 'cert.pem'), textOf(tx, 'certificateData') ?? '');
      const pub = spawnSync('openssl', ['x509', '-pubkey', '-noout', '-in', join(dir, 'cert.pem')], { encoding: 'utf8' });
      assert.equal(pub.status, 0, pub.stderr);
      writeFileSync(join(dir, 'pub.pem'), pub.stdout);
      const f = (n: string): string => textOf(tx, n) ?? '';
      const data = [prev, f('nr'), f('transID'), f('transType'), f('transDate'), f('transTime'), f('empID'), f('transAmntIn'), f('transAmntEx'), reg, cvr].join(';');
      writeFileSync(join(dir, `d${i}`), data);
      writeFileSync(join(dir, `s${i}`), Buffer.from(f('signature'), 'base64'));
      const r = spawnSync('openssl', ['dgst', '-sha512', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, `s${i}`), join(dir, `d${i}`)], { encoding: 'utf8' });
      if (r.status !== 0) return i;
      prev = f('signature');
    }
    return -1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the Danish file validates against UFST XSD v1.0.3 and every signature verifies with openssl', () => {
  const xml = danishSaftXml({ ...INPUT, records: journal().records, period: { from: '2025-03-04', till: '2025-03-04' } });
  const lint = xmllint(xml);
  assert.equal(lint.status, 0, lint.stderr);
  const txs = transactions(xml);
  assert.deepEqual(txs.map((t) => textOf(t, 'nr')), ['1', '2', '3', '4', '5', '6']);
  assert.deepEqual(txs.map((t) => textOf(t, 'transType')), ['CASHSAL', 'RETURNSAL', 'CASHSAL', 'CASHSAL', 'RETURNSAL', 'PAYIN']);
  assert.deepEqual(txs.map((t) => textOf(t, 'trainingID')), ['false', 'false', 'true', 'false', 'false', 'false']);
  assert.deepEqual(txs.map((t) => textOf(t, 'voidTransaction')), ['false', 'false', 'false', 'false', 'true', 'false']);
  assert.deepEqual(txs.map((t) => textOf(t, 'empID')), ['7', '7', '7', '7', '7', 'POS']);
  assert.equal(textOf(txs[1] as XmlElement, 'transAmntIn'), '-40.00');
  assert.equal(firstOpensslFailure(xml), -1);
  // every ctLine has an artID listed in articles
  const arts = new Set(children(child(company(xml), 'articles'), 'article').map((a) => textOf(a, 'artID')));
  const lines = txs.flatMap((t) => children(t, 'ctLine'));
  assert.ok(lines.length >= 6);
  for (const l of lines) assert.ok(arts.has(textOf(l, 'artID')), `artID ${textOf(l, 'artID')} in articles`);
  assert.equal(textOf(lines[0] as XmlElement, 'artID'), '5701234');
  // X and Z reports, DKK, the employee's first name
  assert.match(xml, /<reportType>X report<\/reportType>/);
  assert.match(xml, /<reportType>Z report<\/reportType>/);
  assert.match(xml, /<curCode>DKK<\/curCode>/);
  assert.match(xml, /<firstName>Karen<\/firstName>/);
  // tampering with one amount breaks that transaction's signature
  const tampered = xml.replace('<transAmntIn>35.00</transAmntIn>', '<transAmntIn>3.50</transAmntIn>');
  assert.notEqual(tampered, xml);
  assert.equal(firstOpensslFailure(tampered), 3);
});

test('file name: SAF-T Cash Register_<cvr8>_<yyyymmddhhmmss>_1_1.xml', () => {
  assert.equal(danishSaftFileName('DK12345678', new Date(2025, 2, 5, 10, 40, 7)), 'SAF-T Cash Register_12345678_20250305104007_1_1.xml');
});

test('the verifier passes the file, names a tampered amount, and skips the first of a mid-chain file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saft-dk-verify-'));
  try {
    const records = journal().records;
    const xml = danishSaftXml({ ...INPUT, records, period: {} });
    const good = join(dir, 'good.xml');
    writeFileSync(good, xml);
    const ok = await verifyDanishExport(good);
    assert.equal(ok.ok, true, ok.text);
    assert.match(ok.text, /6 checked signatures verify/);
    assert.ok(VERIFIERS.dk, 'dk registered');
    assert.equal((await (VERIFIERS.dk as { verify(p: string): Promise<{ ok: boolean }> }).verify(good)).ok, true);

    const bad = join(dir, 'bad.xml');
    writeFileSync(bad, xml.replace('<transAmntIn>35.00</transAmntIn>', '<transAmntIn>3.50</transAmntIn>'));
    const broken = await verifyDanishExport(bad);
    assert.equal(broken.ok, false);
    assert.match(broken.text, /cashtransaction nr 4 \(transID \d+\)/);

    // a period starting mid-chain (from the return on): its first transaction is not checked, the rest are
    const mid = join(dir, 'mid.xml');
    writeFileSync(mid, danishSaftXml({ ...INPUT, records, period: { from: '2025-03-04T09:20:00' } }));
    const m = await verifyDanishExport(mid);
    assert.equal(m.ok, true, m.text);
    assert.match(m.text, /starts mid-chain at nr 2/);
    assert.match(m.text, /4 checked signatures verify/);
    const lint = xmllint(readFileSync(mid, 'utf8'));
    assert.equal(lint.status, 0, lint.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
